import type { DataSource } from 'typeorm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { countGroupRuns } from './count-group-runs';
import { countRecentEvents, countRecentEventsSql } from './count-recent-events';
import { countTenantRuns, countTenantRunsSql } from './count-tenant-runs';
import { clearBacklogLate, markBacklogLate } from './backlog-late';
import { findLoadTenants } from './find-load-tenants';
import { findOldestDue, findOldestDueSql } from './find-oldest-due';
import { readLoadBoard } from './read-load-board';
import { countSentAheadByExecutor } from './sent-ahead';

const T = 1_767_225_600_000;

async function tenant(ds: DataSource, id: string, group = 'default'): Promise<void> {
  await ds.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES (?, ?, ?, 's', 0)`, [id, id, group]);
}

/** `n` runs of a tenant in one state, due at `dueAt + i`. */
async function runs(ds: DataSource, tenantId: string, state: string, n: number, dueAt: number, group = 'default'): Promise<void> {
  for (let from = 0; from < n; from += 500) {
    const values: string[] = [];
    for (let i = from; i < Math.min(n, from + 500); i++) {
      values.push(`('${tenantId}', 1, '${group}', '${state}', 'SCHEDULE', '${tenantId}:${state}:${dueAt}:${i}', 1, 0, '{}', ${dueAt + i}, ${dueAt + i}, ${T}, ${T})`);
    }
    await ds.query(
      `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`,
    );
  }
}

describe.each(TEST_DATABASES)('load queries on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  it("counts a tenant's runs due, held and in flight — each capped —, and nobody else's", async () => {
    await tenant(db.dataSource, 'a');
    await tenant(db.dataSource, 'b');
    await runs(db.dataSource, 'a', 'PENDING', 7, T - 1000); // due
    await runs(db.dataSource, 'a', 'RETRY_WAIT', 2, T - 500); // due
    await runs(db.dataSource, 'a', 'PENDING', 4, T + 1000); // planned ahead: not due yet
    await runs(db.dataSource, 'a', 'CLAIMED', 3, T);
    await runs(db.dataSource, 'a', 'DISPATCHED', 1, T - 10);
    await runs(db.dataSource, 'a', 'ACCEPTED', 2, T - 10);
    await runs(db.dataSource, 'a', 'SUCCEEDED', 5, T - 5000);
    await runs(db.dataSource, 'b', 'PENDING', 11, T - 9000);
    // Sent ahead of their instant, waiting for it at their executor: not in flight.
    await runs(db.dataSource, 'a', 'ACCEPTED', 4, T + 3000);
    await runs(db.dataSource, 'a', 'DISPATCHED', 1, T + 3000);
    // Handed back before its instant and sent ahead again: due_at is the hand-back's, instant_at its instant.
    await runs(db.dataSource, 'a', 'ACCEPTED', 1, T - 100);
    await db.dataSource.query("UPDATE runs SET instant_at = ? WHERE tenant_id = 'a' AND due_at = ?", [T + 2000, T - 100]);
    // Deferred past its instant (a dispatch back-off) and sent at its new due time: its instant has come.
    await runs(db.dataSource, 'a', 'ACCEPTED', 1, T - 200);
    await db.dataSource.query("UPDATE runs SET instant_at = ? WHERE tenant_id = 'a' AND due_at = ?", [T - 5000, T - 200]);
    const m = db.dataSource.manager;
    expect(await countTenantRuns(m, { tenantId: 'a', engineGroup: 'default', now: T, cap: 100 })).toEqual({
      due: { count: 9, capped: false },
      held: { count: 3, capped: false },
      inFlight: { count: 4, capped: false },
      sentAhead: { count: 6, capped: false },
    });
    expect(await countTenantRuns(m, { tenantId: 'a', engineGroup: 'default', now: T, cap: 8 })).toMatchObject({ due: { count: 8, capped: true }, held: { count: 3, capped: false } });
    expect((await countTenantRuns(m, { tenantId: 'b', engineGroup: 'default', now: T, cap: 100 })).due.count).toBe(11);
    // Their instants come: in flight.
    expect(await countTenantRuns(m, { tenantId: 'a', engineGroup: 'default', now: T + 5000, cap: 100 })).toMatchObject({ inFlight: { count: 10 }, sentAhead: { count: 0 } });
    expect(await countGroupRuns(m, { groups: ['default'], now: T, cap: 100 })).toEqual({
      due: { count: 20, capped: false },
      held: { count: 3, capped: false },
      inFlight: { count: 4, capped: false },
      sentAhead: { count: 6, capped: false },
    });

    // The oldest due run of each tenant: PENDING or RETRY_WAIT, whichever is older.
    const both = [
      { id: 'a', engineGroup: 'default' },
      { id: 'b', engineGroup: 'default' },
    ];
    expect(await findOldestDue(m, { now: T, tenants: both })).toEqual(new Map([['a', T - 1000], ['b', T - 9000]]));
    expect(await findOldestDue(m, { now: T, tenants: [both[0]] })).toEqual(new Map([['a', T - 1000]]));
    expect(await findOldestDue(m, { now: T - 2000, tenants: both })).toEqual(new Map([['b', T - 9000]]));
    expect(await findOldestDue(m, { now: T, tenants: [] })).toEqual(new Map());
  });

  it('counts the runs sent ahead to each executor of a tenant that wait there for their instant, nobody else\'s', async () => {
    await tenant(db.dataSource, 'a');
    await tenant(db.dataSource, 'b');
    await runs(db.dataSource, 'a', 'ACCEPTED', 3, T + 1000); // sent ahead
    await runs(db.dataSource, 'a', 'DISPATCHED', 1, T + 5000); // sent ahead
    await runs(db.dataSource, 'a', 'ACCEPTED', 2, T - 1000); // running
    await runs(db.dataSource, 'a', 'PENDING', 2, T + 1000); // not sent
    await runs(db.dataSource, 'b', 'ACCEPTED', 2, T + 1000); // another tenant's
    await db.dataSource.query("UPDATE runs SET executor_id = CASE WHEN due_at = ? THEN 8 ELSE 7 END WHERE state IN ('DISPATCHED', 'ACCEPTED')", [T + 1001]);
    expect(await countSentAheadByExecutor(db.dataSource.manager, { tenantId: 'a', engineGroup: 'default', now: T })).toEqual(new Map([[7, 3], [8, 1]]));
    expect(await countSentAheadByExecutor(db.dataSource.manager, { tenantId: 'a', engineGroup: 'default', now: T + 5000 })).toEqual(new Map());
  });

  it('ranks a board by the oldest due run and counts only its first `limit` tenants', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await tenant(db.dataSource, id);
    await runs(db.dataSource, 'b', 'PENDING', 3, T - 1000);
    await runs(db.dataSource, 'c', 'PENDING', 2, T - 60_000);
    await runs(db.dataSource, 'd', 'CLAIMED', 1, T);
    await db.dataSource.query(`INSERT INTO executors (tenant_id, app, url, capacity, in_flight, state, registered_at, heartbeat_at) VALUES ('c', 'x', 'http://c1', 4, 1, 'UP', 0, 0), ('c', 'x', 'http://c2', 2, 2, 'UP', 0, 0), ('c', 'x', 'http://c3', 8, 0, 'DOWN', 0, 0)`);
    const tenants = await findLoadTenants(db.dataSource.manager);
    const board = await readLoadBoard(db.dataSource.manager, { tenants, now: T, limit: 3, cap: 100 });
    expect(board.top.map((t) => t.tenantId)).toEqual(['c', 'b', 'a']);
    expect(board.top[0]).toMatchObject({ oldestDueAt: T - 60_000, oldestDueAgeMs: 60_000, due: { count: 2 }, executors: { up: 2, capacity: 6, inFlight: 3 } });
    expect(board.top[2]).toMatchObject({ oldestDueAt: null, oldestDueAgeMs: null, due: { count: 0 }, executors: { up: 0, capacity: 0 } });
    expect([...board.oldestDue.keys()].sort()).toEqual(['b', 'c']);
    expect(await findLoadTenants(db.dataSource.manager, { groups: ['other'] })).toEqual([]);
  });

  it('lets one of several engines move a tenant into a late episode, and ends it', async () => {
    await tenant(db.dataSource, 'a');
    const m = db.dataSource.manager;
    expect(await markBacklogLate(m, 'a', T)).toBe(true);
    expect(await markBacklogLate(m, 'a', T + 1)).toBe(false);
    expect((await findLoadTenants(m, { tenantId: 'a' }))[0]).toMatchObject({ backlogLateSince: T, backlogAlarmMs: null });
    expect(await clearBacklogLate(m, 'a')).toBe(true);
    expect(await clearBacklogLate(m, 'a')).toBe(false);
  });
});

/** The plans MariaDB chooses on a table big enough for the optimizer to care. */
/** `n` events of a tenant received at `at`. */
async function events(ds: DataSource, tenantId: string, n: number, at: number): Promise<void> {
  const values = Array.from({ length: n }, () => `('${tenantId}', 'order.paid', '{}', '[]', ${at})`);
  await ds.query(`INSERT INTO events (tenant_id, name, payload, run_ids, received_at) VALUES ${values.join(',')}`);
}

describe.each(TEST_DATABASES)('recent events on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  it("counts each tenant's events since a time, among the newest `cap` of all tenants", async () => {
    expect(await countRecentEvents(db.dataSource.manager, { since: T, cap: 100 })).toEqual(new Map());
    await events(db.dataSource, 'a', 50, T - 60_000); // before the window
    await events(db.dataSource, 'a', 7, T);
    await events(db.dataSource, 'b', 3, T + 5_000);
    expect(await countRecentEvents(db.dataSource.manager, { since: T, cap: 100 })).toEqual(new Map([['a', 7], ['b', 3]]));
    // Past the cap, only the newest are counted: a floor, at a bounded cost.
    expect(await countRecentEvents(db.dataSource.manager, { since: T, cap: 5 })).toEqual(new Map([['a', 2], ['b', 3]]));
  });
});

describe('load query plans on mysql', () => {
  const db = useTestDatabase('mysql');

  beforeAll(async () => {
    // 300 tenants; 60,000 runs: 30,000 ended, 20,000 due (half of them one tenant's backfill), 5,000 ahead, 5,000 held or in flight.
    const ds = db.dataSource;
    const tenants = Array.from({ length: 300 }, (_, i) => `('t${i}', 't${i}', 'default', 's', 0)`);
    await ds.query(`INSERT INTO tenants (id, name, engine_group, executor_secret, created_at) VALUES ${tenants.join(',')}`);
    await runs(ds, 't0', 'PENDING', 10_000, T - 20_000);
    for (let chunk = 0; chunk < 50; chunk++) {
      const values: string[] = [];
      for (let i = chunk * 1000; i < (chunk + 1) * 1000; i++) {
        const state = i < 30_000 ? 'SUCCEEDED' : i < 40_000 ? 'PENDING' : i < 45_000 ? 'PENDING' : ['CLAIMED', 'DISPATCHED', 'ACCEPTED'][i % 3];
        const due = i >= 40_000 && i < 45_000 ? T + 1000 + i : T - 50_000 + i;
        values.push(`('t${1 + (i % 299)}', 1, 'default', '${state}', 'SCHEDULE', 'p:${i}', 1, 0, '{}', ${due}, ${due}, ${T}, ${T})`);
      }
      await ds.query(`INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`);
    }
    await ds.query('ANALYZE TABLE runs');
  }, 120_000);

  const explain = (sql: string, params: unknown[]) => db.dataSource.query(`EXPLAIN ${sql}`, params) as Promise<Array<{ table: string; key: string | null; type: string; rows: number; Extra: string | null }>>;

  it("a tenant's oldest due run is one index dive into ix_runs_claim, not a read of the backlog", async () => {
    const plan = await explain(findOldestDueSql('mysql', 2), [T, T, 't0', 't1']);
    expect(plan.filter((r) => r.table === 'runs').map((r) => [r.key, r.Extra])).toEqual([
      ['ix_runs_claim', 'Using where; Using index'],
      ['ix_runs_claim', 'Using where; Using index'],
    ]);
    // t0's 10,000 due runs: the first index entry of its range is the answer, the rest is never read.
    const runner = db.dataSource.createQueryRunner();
    try {
      await runner.query('FLUSH STATUS');
      expect(await findOldestDue(runner.manager, { now: T, tenants: [{ id: 't0' }] })).toEqual(new Map([['t0', T - 20_000]]));
      const [read] = (await runner.query(`SHOW SESSION STATUS LIKE 'Handler_read_next'`)) as Array<{ Value: string }>;
      expect(Number(read.Value)).toBeLessThan(10);
    } finally {
      await runner.release();
    }
    const tenants = Array.from({ length: 300 }, (_, i) => ({ id: `t${i}`, engineGroup: 'default' }));
    const oldest = await findOldestDue(db.dataSource.manager, { now: T, tenants });
    expect(oldest.get('t0')).toBe(T - 20_000);
    expect(oldest.size).toBe(300);
  });

  it("the recent events of every tenant are one range of the primary key from its end, however many events are kept", async () => {
    await events(db.dataSource, 't1', 2_000, T - 600_000);
    await events(db.dataSource, 't2', 10, T);
    const plan = await explain(countRecentEventsSql('mysql'), [100, T]);
    const scan = plan.find((r) => r.table === 'events' && r.key === 'PRIMARY');
    expect(scan?.type).toBe('range');
    expect(await countRecentEvents(db.dataSource.manager, { since: T, cap: 100 })).toEqual(new Map([['t2', 10]]));
  });

  it("a tenant's counts are ranges of ix_runs_claim and ix_runs_tenant_filter, read from the index alone but the runs sent ahead, and stop at the cap", async () => {
    const plan = await explain(countTenantRunsSql('mysql'), ['default', 't0', T, 10_001, 't0', 10_001, 't0', 10_001, 'default', 't0', T, 10_001]);
    const ofRuns = plan.filter((r) => r.table === 'runs');
    expect(ofRuns.map((r) => r.key).sort()).toEqual(['ix_runs_claim', 'ix_runs_claim', 'ix_runs_tenant_filter', 'ix_runs_tenant_filter']);
    for (const r of ofRuns) expect(['range', 'ref']).toContain(r.type);
    // The three counts from the index alone; the runs sent ahead (the tenant's DISPATCHED and
    // ACCEPTED range of ix_runs_claim) read their rows for instant_at.
    expect(ofRuns.map((r) => [r.key, r.Extra]).sort()).toEqual([
      ['ix_runs_claim', 'Using index condition; Using where'],
      ['ix_runs_claim', 'Using where; Using index'],
      ['ix_runs_tenant_filter', 'Using where; Using index'],
      ['ix_runs_tenant_filter', 'Using where; Using index'],
    ]);
    expect((await countTenantRuns(db.dataSource.manager, { tenantId: 't0', engineGroup: 'default', now: T, cap: 1000 })).due).toEqual({ count: 1000, capped: true });
  });
});
