import { createHash } from 'node:crypto';
import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { DatabaseModule, metricsTenantLabel, readMetricsLabelKey } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { Alarms } from '../alarms/alarms';
import { readEngineConfig } from '../config/engine-config';
import { EngineCoreModule } from '../engine-core.module';
import { EngineMetrics } from '../metrics/engine-metrics';
import { LoadModule } from './load.module';
import { OTHER_TENANTS } from '../metrics/metrics-tenant-labels';
import { TenantLoadSampler } from './tenant-load-sampler';

const T = 1_767_225_600_000;

/** An engine's load side alone (sampler, BACKLOG_LATE), on a shared database. */
async function startLoadSide(dataSource: DataSource, clock: ManualClock, nodeId: string, metricsToken: string | null = 'scrape-token'): Promise<{ app: INestApplication; sampler: TenantLoadSampler; metrics: EngineMetrics }> {
  const config = readEngineConfig({}, { nodeId, groups: ['default'], loadMetricTenants: 2, backlogAlarmMs: 60_000, metricsToken });
  const metrics = new EngineMetrics({ defaultMetrics: false });
  @Module({ imports: [DatabaseModule.forRoot({ dataSource }), EngineCoreModule.forRoot(config, clock, metrics), LoadModule] })
  class LoadSideTestModule {}
  const app = await NestFactory.create(LoadSideTestModule, { logger: ['error'], abortOnError: false });
  await app.init();
  return { app, sampler: app.get(TenantLoadSampler), metrics };
}

describe.each(TEST_DATABASES)('tenant load sampler on %s', (kind) => {
  const db = useTestDatabase(kind);
  const clock = new ManualClock(T);
  let engines: Array<Awaited<ReturnType<typeof startLoadSide>>>;
  let fireKey = 0;

  beforeAll(async () => {
    // The third: /metrics without a token (BATON_METRICS_TOKEN unset), tenants labelled by an opaque id.
    engines = [await startLoadSide(db.dataSource, clock, 'engine-1'), await startLoadSide(db.dataSource, clock, 'engine-2'), await startLoadSide(db.dataSource, clock, 'engine-3', null)];
  });
  afterAll(async () => {
    for (const e of engines ?? []) await e.app.close();
  });
  beforeEach(async () => {
    clock.set(T);
    await db.clear();
    await db.dataSource.query(`INSERT INTO engine_groups (name, description, created_at) VALUES ('default', '', 0), ('elsewhere', '', 0)`);
  });

  async function tenant(id: string, backlogAlarmMs: number | null = null, group = 'default'): Promise<void> {
    await db.dataSource.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, backlog_alarm_ms, created_at) VALUES (?, ?, ?, 's', ?, 0)`, [id, id, group, backlogAlarmMs]);
  }
  async function due(tenantId: string, n: number, dueAt: number, state = 'PENDING', group = 'default'): Promise<void> {
    for (let i = 0; i < n; i++) {
      await db.dataSource.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at)
         VALUES (?, 1, ?, ?, 'SCHEDULE', ?, 1, 0, '{}', ?, ?, 0, 0)`,
        [tenantId, group, state, `k${++fireKey}`, dueAt, dueAt],
      );
    }
  }
  const backlogAlarms = async () =>
    ((await db.dataSource.query(`SELECT tenant_id, severity, task_id, count, message, published_at FROM alarms WHERE type = 'BACKLOG_LATE' ORDER BY tenant_id`)) as Array<Record<string, unknown>>).map(
      (r) => ({ tenantId: String(r.tenant_id), severity: r.severity, taskId: r.task_id, count: Number(r.count), message: String(r.message), published: r.published_at !== null }),
    );
  /** Both engines' ticks, and the repeats they counted into open alarms written (after their transactions: AlarmCounts). */
  const tickBoth = async () => {
    const raised = (await Promise.all(engines.slice(0, 2).map((e) => e.sampler.tick()))).reduce((sum, s) => sum + s.backlogAlarms, 0);
    await Promise.all(engines.slice(0, 2).map((e) => e.app.get(Alarms).countsWritten()));
    return raised;
  };

  it('raises BACKLOG_LATE once for a late backlog, whichever engines look, and not for a tenant with nothing late', async () => {
    await tenant('late');
    await tenant('fresh');
    await tenant('idle');
    await tenant('strict', 5_000); // its own threshold
    await tenant('silenced', 0); // no such alarm
    await tenant('foreign', null, 'elsewhere'); // another group's: not these engines'
    await due('late', 3, T - 120_000);
    await due('late', 2, T, 'CLAIMED');
    await due('fresh', 4, T - 1_000);
    await due('strict', 1, T - 10_000);
    await due('silenced', 1, T - 600_000);
    await due('foreign', 1, T - 600_000, 'PENDING', 'elsewhere');

    expect(await tickBoth()).toBe(2);
    const raised = await backlogAlarms();
    expect(raised.map((a) => a.tenantId)).toEqual(['late', 'strict']);
    expect(raised[0]).toMatchObject({ severity: 'WARNING', taskId: null, count: 1, published: false });
    expect(raised[0].message).toBe('Tenant late: its oldest due run has waited 120 s (threshold 60 s); 3 due, 2 held by engines, 0 at executors, 0 sent ahead waiting for their instant (0 UP executor(s), capacity 0)');

    // Still late: the episode goes on, nothing new.
    clock.advance(10_000);
    expect(await tickBoth()).toBe(0);
    expect(await backlogAlarms()).toHaveLength(2);
  });

  it('ends the episode when the backlog catches up; a new episode soon after counts into the unacknowledged alarm', async () => {
    await tenant('late');
    await due('late', 1, T - 120_000);
    expect(await tickBoth()).toBe(1);
    await db.dataSource.query(`UPDATE runs SET state = 'SUCCEEDED' WHERE tenant_id = 'late'`);
    await tickBoth();
    expect((await db.dataSource.query(`SELECT backlog_late_since FROM tenants WHERE id = 'late'`))[0].backlog_late_since).toBeNull();

    clock.advance(70_000);
    await due('late', 1, T - 10_000); // waited 80 s by now
    expect(await tickBoth()).toBe(1);
    expect(await backlogAlarms()).toMatchObject([{ tenantId: 'late', count: 2 }]);
  });

  it('gives the tenants with the oldest due runs a label each, at most BATON_LOAD_METRIC_TENANTS, and sums the others under _other', async () => {
    await tenant('a');
    await tenant('b');
    await tenant('c');
    await tenant('d');
    await due('a', 2, T - 5_000);
    await due('b', 3, T - 50_000);
    await due('c', 4, T - 1_000);
    await due('c', 2, T, 'ACCEPTED');
    // Sent ahead of their instant, waiting for it at their executor: no load, counted apart.
    await due('a', 3, T + 5_000, 'ACCEPTED');
    await due('c', 1, T + 5_000, 'DISPATCHED');
    await due('d', 1, T, 'CLAIMED');
    await db.dataSource.query(`INSERT INTO executors (tenant_id, app, url, capacity, in_flight, state, registered_at, heartbeat_at) VALUES ('c', 'x', 'http://c', 4, 2, 'UP', 0, 0)`);
    await engines[0].sampler.tick();
    const values = async (name: string) => {
      const metric = await engines[0].metrics.registry.getSingleMetric(name)!.get();
      return Object.fromEntries(metric.values.map((v) => [v.labels.tenant, v.value]));
    };
    expect(await values('baton_engine_tenant_due_runs')).toEqual({ b: 3, a: 2, [OTHER_TENANTS]: 4 });
    expect(await values('baton_engine_tenant_oldest_due_age_seconds')).toEqual({ b: 50, a: 5, [OTHER_TENANTS]: 1 });
    expect(await values('baton_engine_tenant_held_runs')).toEqual({ b: 0, a: 0, [OTHER_TENANTS]: 1 });
    expect(await values('baton_engine_tenant_in_flight_runs')).toEqual({ b: 0, a: 0, [OTHER_TENANTS]: 2 });
    expect(await values('baton_engine_tenant_sent_ahead_runs')).toEqual({ b: 0, a: 3, [OTHER_TENANTS]: 1 });
    expect(await values('baton_engine_tenant_executor_capacity')).toEqual({ b: 0, a: 0, [OTHER_TENANTS]: 4 });

    // b's backlog goes: it leaves the labels, c takes its place.
    await db.dataSource.query(`UPDATE runs SET state = 'SUCCEEDED' WHERE tenant_id = 'b'`);
    await engines[0].sampler.tick();
    expect(await values('baton_engine_tenant_due_runs')).toEqual({ a: 2, c: 4, [OTHER_TENANTS]: 0 });
    expect(await values('baton_engine_tenant_in_flight_runs')).toEqual({ a: 0, c: 2, [OTHER_TENANTS]: 0 });
    expect(await values('baton_engine_tenant_sent_ahead_runs')).toEqual({ a: 3, c: 1, [OTHER_TENANTS]: 0 });
    expect(await engines[0].metrics.registry.metrics()).toContain('baton_engine_tenant_held_runs{tenant="_other"} 1');
  });

  it('reports each tenant’s events a second over the last 10 s, labelled as the other gauges, another group’s tenants left out', async () => {
    await tenant('a');
    await tenant('b');
    await tenant('c');
    await tenant('far', null, 'elsewhere');
    await due('a', 1, T - 5_000);
    const events = async (tenantId: string, n: number, at: number) => {
      for (let i = 0; i < n; i++) await db.dataSource.query(`INSERT INTO events (tenant_id, name, payload, run_ids, received_at) VALUES (?, 'order.paid', '{}', '[]', ?)`, [tenantId, at]);
    };
    await events('a', 30, T - 2_000);
    await events('a', 50, T - 11_000); // before the window
    await events('b', 5, T - 1_000);
    await events('c', 10, T - 9_000); // beyond BATON_LOAD_METRIC_TENANTS (2 here): under _other
    await events('far', 40, T - 1_000);
    await engines[0].sampler.tick();
    const metric = await engines[0].metrics.registry.getSingleMetric('baton_engine_tenant_events_per_second')!.get();
    expect(Object.fromEntries(metric.values.map((v) => [v.labels.tenant, v.value]))).toEqual({ a: 3, b: 0.5, [OTHER_TENANTS]: 1 });
  });

  it("reports the alarm outbox's backlog: the unpublished alarms and the oldest one's age, 0 and 0 once published", async () => {
    await tenant('a');
    const alarm = (uid: string, raisedAt: number, publishedAt: number | null) =>
      db.dataSource.query(`INSERT INTO alarms (uid, tenant_id, type, severity, message, count, raised_at, published_at) VALUES (?, 'a', 'FAILED', 'ERROR', 'm', 1, ?, ?)`, [uid, raisedAt, publishedAt]);
    await alarm('sent', T - 90_000, T - 89_000);
    await alarm('waits-1', T - 30_000, null);
    await alarm('waits-2', T - 4_000, null);
    const outbox = async () => {
      await engines[0].sampler.tick();
      const value = async (name: string) => (await engines[0].metrics.registry.getSingleMetric(name)!.get()).values[0]?.value;
      return [await value('baton_engine_alarm_outbox_pending'), await value('baton_engine_alarm_outbox_oldest_age_seconds')];
    };
    expect(await outbox()).toEqual([2, 30]);
    await db.dataSource.query(`UPDATE alarms SET published_at = ? WHERE published_at IS NULL`, [T]);
    expect(await outbox()).toEqual([0, 0]);
  });

  it('labels tenants by an opaque id when /metrics needs no token: keyed by the cluster secret, the same on every engine, not the id\'s plain hash', async () => {
    await tenant('acme-corp');
    await due('acme-corp', 2, T - 5_000);
    // Two engines started now (db.clear() dropped the secret the others read): the first makes the secret, the second reads it.
    const fresh = [await startLoadSide(db.dataSource, clock, 'engine-4', null), await startLoadSide(db.dataSource, clock, 'engine-5', null)];
    try {
      const label = metricsTenantLabel(await readMetricsLabelKey(db.dataSource.manager, T), 'acme-corp');
      expect(label).toMatch(/^t_[0-9a-f]{12}$/);
      expect(label).not.toBe(`t_${createHash('sha256').update('acme-corp').digest('hex').slice(0, 12)}`); // a guessed name cannot be checked by hashing it
      for (const engine of fresh) {
        await engine.sampler.tick();
        const text = await engine.metrics.registry.metrics();
        expect(text).not.toContain('acme-corp');
        expect(text).toContain(`baton_engine_tenant_due_runs{tenant="${label}"} 2`);
      }
    } finally {
      for (const engine of fresh) await engine.app.close();
    }
  });
});
