/**
 * Approval steps (issue 42 item 5), end to end on each database: a console (REST API) and an engine
 * node on one data source, and a demo executor (the SDK). A parent's success fires its child behind
 * an approval step into APPROVAL_WAIT with an APPROVAL_REQUESTED alarm; a person approves (the run
 * goes on at once) or rejects (it fails, its ON_FAILURE child fires, its ON_SUCCESS one never does),
 * or the deadline decides. Only the principals the step names decide, only in the run's tenant, each
 * decision once, each recorded in the audit log.
 */
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExecutorServer, type ExecutorServer } from '@baton/executor-sdk';
import { buildDemoHandlers } from '../../apps/demo-executor/src';
import { EngineModule, readEngineConfig, startEngine } from '../../apps/engine/src';
import { ApprovalDecisions } from '../../apps/engine/src/runs/approval-decisions';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { waitFor } from '../cluster/support/cluster';
import { seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

interface RunRow {
  id: number;
  taskId: number;
  state: string;
  error: string | null;
}

/** Waits are for the event each names; this only bounds a hang (under the file's test timeout). */
const HANG_GUARD_MS = 80_000;

describe.each(TEST_DATABASES)('approval steps on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let engine: INestApplication;
  let executor: ExecutorServer;
  let alpha: SeededTenant;
  let beta: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    alpha = await seedTenant(t, db.dataSource, 'alpha');
    beta = await seedTenant(t, db.dataSource, 'beta');
    // The engine's own (system) clock: the deadline is enforced by its watchdog, every 50 ms here.
    const config = readEngineConfig({}, { databaseUrl: db.url, nodeId: `approvals-${kind}`, host: '127.0.0.1', port: 0, groups: ['default'], watchdogIntervalMs: 50, claimIntervalMs: 50, planIntervalMs: 100, heartbeatMs: 500 });
    engine = await NestFactory.create(EngineModule.forRoot({ config, dataSource: db.dataSource }), { bodyParser: false, logger: ['error'], abortOnError: false });
    await engine.listen(0, '127.0.0.1');
    const engineUrl = await startEngine(engine);
    executor = createExecutorServer({ tenantId: 'alpha', secret: 'secret-alpha', app: 'demo', handlers: buildDemoHandlers(), engineUrls: [engineUrl], spoolFile: false, heartbeatIntervalMs: 200, progressIntervalMs: 0, logger: false });
    await executor.start();
  });
  afterAll(async () => {
    await executor?.stop();
    await engine?.close();
    await t?.close();
  });

  const api = () => t.http();
  async function task(name: string): Promise<number> {
    const res = await api().post('/api/tasks').set(alpha.admin).send({ name, executorApp: 'demo', handler: 'record', trigger: { kind: 'MANUAL' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  }
  async function edge(parentTaskId: number, childTaskId: number, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await api().post('/api/dependencies').set(alpha.admin).send({ parentTaskId, childTaskId, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  async function runsOf(taskId: number): Promise<RunRow[]> {
    return (await api().get(`/api/runs?taskId=${taskId}`).set(alpha.admin)).body.items as RunRow[];
  }
  /** Polls the task's runs until `check` holds (the event the test waits for), then answers them. */
  async function until(taskId: number, check: (runs: RunRow[]) => boolean, what: string): Promise<RunRow[]> {
    return waitFor(
      async () => {
        const runs = await runsOf(taskId);
        return check(runs) ? runs : false;
      },
      { what, timeoutMs: HANG_GUARD_MS, intervalMs: 20, detail: async () => JSON.stringify(await runsOf(taskId)) },
    );
  }
  async function waitingChild(parent: number, child: number): Promise<number> {
    expect((await api().post(`/api/tasks/${parent}/trigger`).set(alpha.admin).send({})).status).toBe(201);
    const [run] = await until(child, (runs) => runs.some((r) => r.state === 'APPROVAL_WAIT'), 'the child waiting for approval');
    return run.id;
  }
  const decide = (runId: number, verdict: 'approve' | 'reject', as: Credentials, comment?: string) =>
    api().post(`/api/runs/${runId}/${verdict}`).set(as).send(comment === undefined ? {} : { comment });

  /**
   * Holds the engine's approval sweep, opening for as long as the test needs the window between a
   * person's rejection and the engines carrying it out (a watchdog tick: 50 ms here). Resolves once a
   * sweep is held — the watchdog's checks run one after another, so none is reading approvals then;
   * the returned function lets it go on.
   */
  async function holdApprovalSweeps(): Promise<() => void> {
    const decisions = engine.get(ApprovalDecisions);
    const sweep = decisions.sweep.bind(decisions);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const reached = new Promise<void>((resolve) => (held = resolve));
    const spy = vi.spyOn(decisions, 'sweep').mockImplementation(async () => {
      held();
      await gate;
      return sweep();
    });
    await reached;
    return () => {
      spy.mockRestore();
      release();
    };
  }

  it('refuses a bad approval step naming the field and the reason, and stores nothing', async () => {
    const [a, b] = [await task('bad-parent'), await task('bad-child')];
    const res = await api().post('/api/dependencies').set(alpha.admin).send({ parentTaskId: a, childTaskId: b, approval: { role: 'OPERATOR', timeoutMs: 5, onTimeout: 'MAYBE' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'approval.role', reason: 'must be null or one of TENANT_ADMIN, TENANT_VIEWER' },
      { field: 'approval.timeoutMs', reason: 'must be at least 1000' },
      { field: 'approval.onTimeout', reason: 'must be one of APPROVE, REJECT' },
    ]);
    expect((await api().get(`/api/dependencies?taskId=${a}`).set(alpha.admin)).body).toEqual([]);
  });

  it('refuses approvers no user or API key can ever be, naming each, and keeps every name one can have', async () => {
    const [a, b] = [await task('named-parent'), await task('named-child')];
    const rule = "must be a username (1 to 100 characters) or api-key:<an API key's name of 1 to 100 characters>";
    const users = ['alice', 'u'.repeat(101), 'api-key:', `api-key:${'k'.repeat(101)}`, 'api-key:alpha-TENANT_VIEWER'];
    const res = await api().post('/api/dependencies').set(alpha.admin).send({ parentTaskId: a, childTaskId: b, approval: { users } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([1, 2, 3].map((i) => ({ field: `approval.users[${i}]`, reason: rule })));
    expect((await api().get(`/api/dependencies?taskId=${a}`).set(alpha.admin)).body).toEqual([]);
    // A user of single sign-on keeps its directory's name (any characters), an API key any name: both can be named.
    const made = await api().post('/api/dependencies').set(alpha.admin).send({ parentTaskId: a, childTaskId: b, approval: { users: ['jane+ops@example.com', 'u'.repeat(100), 'api-key:chat ops'] } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  });

  it('approve: the run waits with an alarm naming its approvers; a viewer and another tenant are refused; an admin lets it go on at once', async () => {
    const [parent, child] = [await task('deploy-build'), await task('deploy-prod')];
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN' } });
    const runId = await waitingChild(parent, child);

    const alarms = (await api().get('/api/alarms?type=APPROVAL_REQUESTED').set(alpha.admin)).body.items as Array<{ runId: number; message: string; data: Record<string, unknown> }>;
    const alarm = alarms.find((a) => a.runId === runId);
    expect(alarm?.message).toMatch(/waits for approval by any TENANT_ADMIN until .* \(then REJECT\)/);
    expect(alarm?.data).toMatchObject({ role: 'TENANT_ADMIN', users: [], onTimeout: 'REJECT' });

    const asViewer = await api().get(`/api/runs/${runId}`).set(alpha.viewer);
    expect(asViewer.body.approval).toMatchObject({ role: 'TENANT_ADMIN', users: [], decision: null, mayDecide: false });
    expect((await api().get(`/api/runs/${runId}`).set(alpha.admin)).body.approval.mayDecide).toBe(true);

    const refused = await decide(runId, 'approve', alpha.viewer, 'looks fine to me');
    expect(refused.status).toBe(403);
    expect(refused.body.errors).toEqual([{ field: 'approvers', reason: 'alpha-viewer (TENANT_VIEWER) may not decide: the approvers are any TENANT_ADMIN' }]);
    expect((await decide(runId, 'approve', beta.admin)).status).toBe(404);
    expect((await decide(runId, 'approve', alpha.admin, 'x'.repeat(1001))).body.errors).toEqual([{ field: 'comment', reason: 'must be shorter than or equal to 1000 characters' }]);

    const approved = await decide(runId, 'approve', alpha.admin, 'ship it');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.state).toBe('PENDING');
    expect(approved.body.approval).toMatchObject({ decision: 'APPROVE', decidedBy: 'alpha-admin', comment: 'ship it', mayDecide: false });
    await until(child, (runs) => runs[0].state === 'SUCCEEDED', 'the approved run to succeed');

    const again = await decide(runId, 'reject', alpha.admin);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].field).toBe('state');

    // This run's (a deadline of another test may have approved one too, by the engine).
    const audit = (await api().get(`/api/audit?action=run.approve&objectType=run&objectId=${runId}`).set(alpha.admin)).body.items as Array<{ actor: { name: string }; objectId: string; after: Record<string, unknown> }>;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { name: 'alpha-admin' }, objectId: String(runId), after: { decision: 'APPROVE', comment: 'ship it', state: 'PENDING' } });
  });

  it('reject: only the named approver (a viewer API key) decides; the run fails, its ON_FAILURE child fires, its ON_SUCCESS one does not', async () => {
    const [parent, child, cleanup, next] = [await task('refund-check'), await task('refund-pay'), await task('refund-undo'), await task('refund-notify')];
    await edge(parent, child, { approval: { users: ['api-key:alpha-TENANT_VIEWER'], onTimeout: 'APPROVE' } });
    await edge(child, cleanup, { condition: 'ON_FAILURE' });
    await edge(child, next, { condition: 'ON_SUCCESS' });
    const runId = await waitingChild(parent, child);

    expect((await decide(runId, 'reject', alpha.admin)).status).toBe(403); // an admin, but not named
    const rejected = await decide(runId, 'reject', alpha.viewerKey, 'amount too high');
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.approval).toMatchObject({ decision: 'REJECT', decidedBy: 'api-key:alpha-TENANT_VIEWER', comment: 'amount too high' });
    const [failed] = await until(child, (runs) => runs[0].state === 'FAILED', 'the rejected run to fail');
    expect(failed.error).toBe('was rejected by api-key:alpha-TENANT_VIEWER: amount too high');
    await until(cleanup, (runs) => runs[0]?.state === 'SUCCEEDED', 'the ON_FAILURE child to run');
    expect(await runsOf(next)).toEqual([]);

    const audit = (await api().get(`/api/audit?action=run.reject&objectType=run&objectId=${runId}`).set(alpha.admin)).body.items as Array<{ actor: { name: string }; after: Record<string, unknown> }>;
    expect(audit.map((a) => [a.actor.name, a.after.comment])).toEqual([['api-key:alpha-TENANT_VIEWER', 'amount too high']]);
  });

  it('reject, then cancel before the engines carry it out: 409 naming state; the run still ends FAILED, and its ON_FAILURE child runs', async () => {
    const [parent, child, notify] = [await task('release-build'), await task('release-prod'), await task('release-notify-fail')];
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN' } });
    await edge(child, notify, { condition: 'ON_FAILURE' });
    const runId = await waitingChild(parent, child);

    const release = await holdApprovalSweeps();
    try {
      expect((await decide(runId, 'reject', alpha.admin, 'not today')).status).toBe(200);
      const cancel = await api().post(`/api/runs/${runId}/cancel`).set(alpha.admin);
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
      expect(cancel.body.errors).toEqual([{ field: 'state', reason: 'is APPROVAL_WAIT, rejected by alpha-admin: the decision is being applied (the run ends FAILED)' }]);
      // The bulk cancel goes through the same guard.
      const bulk = await api().post('/api/runs/bulk-cancel').set(alpha.admin).send({ ids: [runId] });
      expect(bulk.body.results).toMatchObject([{ id: runId, status: 409, runId: null }]);
      expect((await api().get(`/api/runs/${runId}`).set(alpha.admin)).body).toMatchObject({ state: 'APPROVAL_WAIT', approval: { decision: 'REJECT' } });
    } finally {
      release();
    }
    const [failed] = await until(child, (runs) => runs[0].state === 'FAILED', 'the rejected run to fail');
    expect(failed.error).toBe('was rejected by alpha-admin: not today');
    await until(notify, (runs) => runs[0]?.state === 'SUCCEEDED', 'the ON_FAILURE child to run');
  });

  it('deadline: nobody decides, and the engine decides what the step says on timeout (APPROVE: the run goes on)', async () => {
    const [parent, child] = [await task('nightly-export'), await task('nightly-publish')];
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN', timeoutMs: 1000, onTimeout: 'APPROVE' } });
    const runId = await waitingChild(parent, child);
    await until(child, (runs) => runs[0].state === 'SUCCEEDED', 'the deadline to approve the run');
    const detail = (await api().get(`/api/runs/${runId}`).set(alpha.admin)).body;
    expect(detail.approval).toMatchObject({ decision: 'APPROVE', decidedBy: null, comment: null, mayDecide: false });
    expect(detail.approval.decidedAt).toBeGreaterThanOrEqual(detail.approval.deadlineAt);
    // The deadline's decision is in the audit log, by the engine, as a person's would be — not by which engine node (the tenant reads it).
    const audit = (await api().get(`/api/audit?action=run.approve&objectType=run&objectId=${runId}`).set(alpha.admin)).body.items as Array<{ actor: { kind: string; name: string }; after: Record<string, unknown> }>;
    expect(audit).toEqual([expect.objectContaining({ actor: expect.objectContaining({ kind: 'engine', name: 'engine' }), after: expect.objectContaining({ decision: 'APPROVE', decidedBy: 'deadline', state: 'PENDING' }) })]);
  });

  it('after the deadline, before an engine has recorded its decision (between watchdog ticks, or no engine running), nobody decides: 409 naming state', async () => {
    const [parent, child] = [await task('payout-check'), await task('payout-send')];
    // An hour: the engine (on its own clock) does not reach the deadline during the test; the console's clock is moved to it.
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN', timeoutMs: 3_600_000, onTimeout: 'REJECT' } });
    const runId = await waitingChild(parent, child);
    const { deadlineAt } = (await api().get(`/api/runs/${runId}`).set(alpha.admin)).body.approval as { deadlineAt: number };
    const consoleNow = t.clock.now();
    t.clock.set(deadlineAt);
    // An API key: the sessions made at the console's start have expired by the engine's clock.
    try {
      expect((await api().get(`/api/runs/${runId}`).set(alpha.adminKey)).body.approval).toMatchObject({ decision: null, mayDecide: false });
      const late = await decide(runId, 'approve', alpha.adminKey, 'sorry, I was away');
      expect(late.status, JSON.stringify(late.body)).toBe(409);
      expect(late.body.errors).toEqual([{ field: 'state', reason: `not waiting for approval: it reached its deadline (${new Date(deadlineAt).toISOString()}): the step decides REJECT by itself` }]);
      expect((await api().get(`/api/runs/${runId}`).set(alpha.adminKey)).body).toMatchObject({ state: 'APPROVAL_WAIT', approval: { decision: null } });
      // Its deadline rejects it: a cancel would skip the failure path the rejection takes.
      const cancel = await api().post(`/api/runs/${runId}/cancel`).set(alpha.adminKey);
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
      expect(cancel.body.errors).toEqual([{ field: 'state', reason: 'is APPROVAL_WAIT, rejected by its deadline (onTimeout REJECT): the decision is being applied (the run ends FAILED)' }]);
    } finally {
      t.clock.set(consoleNow);
    }
    expect((await api().post(`/api/runs/${runId}/cancel`).set(alpha.admin)).status).toBe(200);
  });

  it('cancel: a waiting run can be cancelled; at its deadline the engine only takes its row out of the sweep, deciding nothing', async () => {
    const [parent, child] = [await task('cleanup-scan'), await task('cleanup-delete')];
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN', timeoutMs: 1000, onTimeout: 'APPROVE' } });
    const runId = await waitingChild(parent, child);
    const cancelled = await api().post(`/api/runs/${runId}/cancel`).set(alpha.admin);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.state).toBe('CANCELLED');
    await waitFor(async () => (await db.dataSource.query('SELECT due_at FROM run_approvals WHERE run_id = ?', [runId]))[0].due_at === null, {
      what: "the sweep settling the cancelled run's approval",
      timeoutMs: HANG_GUARD_MS,
      intervalMs: 20,
    });
    const detail = (await api().get(`/api/runs/${runId}`).set(alpha.admin)).body;
    expect(detail.state).toBe('CANCELLED');
    expect(detail.approval).toMatchObject({ decision: null, decidedBy: null, mayDecide: false });
    for (const verdict of ['approve', 'reject'] as const) {
      const late = await decide(runId, verdict, alpha.admin);
      expect(late.status).toBe(409);
      expect(late.body.errors[0].field).toBe('state');
    }
  });

  it('tasks as code carry the approval step: exported, planned as a change, and a bad one refused naming its place', async () => {
    // Its own edge: shuffled, this test may run before any other made one.
    const [parent, child] = [await task('export-build'), await task('export-prod')];
    await edge(parent, child, { approval: { role: 'TENANT_ADMIN' } });
    const exported = await api().get('/api/config/export').set(alpha.admin);
    expect(exported.text).toContain('child: export-prod\n    condition: ON_SUCCESS\n    approval:\n      role: TENANT_ADMIN\n      users: []\n      timeoutMs: 86400000\n      onTimeout: REJECT');
    const bad = await api().post('/api/config/plan').set(alpha.admin).send({ file: 'version: 1\ndependencies:\n  - parent: deploy-build\n    child: deploy-prod\n    approval: { users: [], onTimeout: LATER }\n' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { field: 'dependencies[0].approval.role', reason: 'a gate must name who may decide: a role, or users' },
      { field: 'dependencies[0].approval.onTimeout', reason: 'must be one of APPROVE, REJECT' },
    ]);
  });
});
