import 'reflect-metadata';
import { Module } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { DatabaseModule } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import { EngineCoreModule } from '../engine-core.module';
import { EngineMetrics } from '../metrics/engine-metrics';
import { DUE_QUEUE } from '../claimer/due-queue-port';
import { ClaimerService } from '../claimer/claimer.service';
import { ClaimTenants } from '../claimer/claim-tenants';
import { RunClaims } from '../runs/run-claims';
import { KeyAdmissions } from '../runs/key-admissions';
import { CancelledRuns } from '../wakeups/cancelled-runs';
import { LeaseRenewerService } from '../claimer/lease-renewer.service';
import { PlannerService } from '../planner/planner.service';
import { EngineNodeService } from '../node/engine-node.service';
import { TakeoverService } from '../node/takeover/takeover.service';
import { EngineLifecycleService } from '../node/engine-lifecycle.service';
import { LivenessLock } from '../node/liveness-lock';
import { FakeDueQueue, T0, testConfig } from '../testing/engine-test-kit';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { startEngine } from '../start-engine';

describe('GET /health and GET /metrics', () => {
  const db = useTestDatabase('sqlite');
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function boot(queue: FakeDueQueue, metrics: EngineMetrics) {
    const config = testConfig({ nodeId: 'engine-http', groups: ['default', 'reports'], slots: 8, port: 0, publicUrl: null });
    // The claim side with the dispatch side's DueQueue replaced by a fake (EngineModule binds the real one).
    @Module({
      imports: [DatabaseModule.forRoot({ dataSource: db.dataSource }), EngineCoreModule.forRoot(config, new ManualClock(T0), metrics)],
      controllers: [HealthController, MetricsController],
      providers: [{ provide: DUE_QUEUE, useValue: queue }, { provide: CancelledRuns, useValue: { abort: () => Promise.resolve() } }, KeyAdmissions, EngineNodeService, TakeoverService, PlannerService, ClaimerService, ClaimTenants, RunClaims, LeaseRenewerService, EngineLifecycleService, LivenessLock],
    })
    class ClaimSideOnly {}
    // abortOnError false: a wiring mistake fails this test with Nest's message instead of aborting the worker.
    app = await NestFactory.create(ClaimSideOnly, { logger: false, abortOnError: false });
    await app.listen(0, '127.0.0.1');
    return { app, config };
  }

  it('reports the node (503 until it runs), and serves Prometheus metrics', async () => {
    const queue = new FakeDueQueue();
    const metrics = new EngineMetrics({ defaultMetrics: false });
    const { app, config } = await boot(queue, metrics);

    const before = await request(app.getHttpServer()).get('/health');
    expect(before.status).toBe(503);
    expect(before.body).toMatchObject({ status: 'degraded', state: 'NEW', db: 'up', nodeId: 'engine-http' });

    const url = await startEngine(app);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(config.publicUrl).toBe(url); // resolved for the dispatch side's callback URL
    metrics.slotsInUse.set(3);
    queue.runs.push({ runId: 1 } as never);

    const health = await request(app.getHttpServer()).get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      nodeId: 'engine-http',
      state: 'RUNNING',
      groups: ['default', 'reports'],
      url,
      heldRuns: 1,
      slots: 8,
      slotsInUse: 3,
      db: 'up',
      lastHeartbeatAt: T0,
      time: T0,
      clock: null, // a ManualClock is the time itself: nothing measured
    });

    const text = await request(app.getHttpServer()).get('/metrics');
    expect(text.status).toBe(200);
    expect(text.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    expect(text.text).toMatch(/^baton_engine_slots_in_use 3$/m);
    expect(text.text).toMatch(/baton_engine_claim_batch_size_bucket\{le="0",kind="runs"\}/);
  });
});
