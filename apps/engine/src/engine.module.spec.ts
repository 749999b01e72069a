import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineNodeEntity, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import { WokenRows } from './common/woken-rows';
import { EngineModule } from './engine.module';
import { RunClaims } from './runs/run-claims';
import { startEngine } from './start-engine';
import { EngineMetrics } from './metrics/engine-metrics';
import { insertTask, testConfig } from './testing/engine-test-kit';
import { eventually } from './testing/eventually';

describe.each(TEST_DATABASES)('EngineModule (claim and dispatch sides wired) on %s', (kind) => {
  const db = useTestDatabase(kind);
  let app: INestApplication | undefined;
  beforeEach(() => db.clear());
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('boots on a shared data source, plans and claims a due run, serves /health and /metrics, and stops DOWN', async () => {
    const config = testConfig({ nodeId: `engine-${kind}`, port: 0, publicUrl: null, heartbeatMs: 100, planIntervalMs: 50, claimIntervalMs: 20 });
    const metrics = new EngineMetrics({ defaultMetrics: false });
    app = await NestFactory.create(EngineModule.forRoot({ config, dataSource: db.dataSource, metrics }), { logger: false });
    await app.listen(0, '127.0.0.1');
    const url = await startEngine(app);

    const health = await request(app.getHttpServer()).get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', state: 'RUNNING', nodeId: `engine-${kind}`, url, db: 'up' });
    expect(await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: config.nodeId })).toMatchObject({ state: 'UP', url });
    // The wake key the console proves carried rows with is this node's, and its claims take those rows.
    const woken = app.get(WokenRows);
    expect(await db.dataSource.getRepository(EngineNodeEntity).findOneOrFail({ where: { id: config.nodeId }, select: { id: true, wakeKey: true } })).toMatchObject({ wakeKey: woken.key });
    expect((app.get(RunClaims) as unknown as { woken?: WokenRows }).woken).toBe(woken);

    const task = await insertTask(db.dataSource, { trigger: { kind: 'ONCE', at: Date.now() + 300 }, createdAt: Date.now() });
    // Planned, claimed and handed to the real DueQueue, which fires it at its time (no executor
    // is registered, so the dispatch side defers it — what matters here is that it left PENDING).
    await eventually(async () => {
      const runs = await db.dataSource.getRepository(RunEntity).findBy({ taskId: task });
      return runs.length === 1 && runs[0].state !== 'PENDING';
    }, 'the planned run claimed and fired');
    expect((await request(app.getHttpServer()).get('/metrics')).text).toMatch(/baton_engine_claim_batch_size_count\{kind="runs"\} [1-9]/);

    await app.close();
    app = undefined;
    expect((await db.dataSource.getRepository(EngineNodeEntity).findOneByOrFail({ id: config.nodeId })).state).toBe('DOWN');
    expect(db.dataSource.isInitialized).toBe(true); // a shared data source is its owner's to close
  });
});
