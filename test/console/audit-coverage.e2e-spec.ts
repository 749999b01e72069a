/**
 * The audit log's coverage, walked from the console's own OpenAPI document (issue 23 part 2):
 * every state-changing route (every method but GET) must either name its audit action
 * (`x-audit-action`, from @Audited) or say why it changes nothing (`x-audit-exempt`, from
 * @NotAudited). Then each audited route is called once as it succeeds and must add exactly one
 * record with its action, and once as it is refused (wrong role, unknown object or bad input)
 * and must add none. A write route this file does not know how to call fails the test: a new
 * route is wired by adding @Audited on it, auditChange in its service, and a line to CALLS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { cronTask, insertAlarm, insertExecutor, insertRun, insertWaitingRun, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

type Method = 'post' | 'put' | 'patch' | 'delete';

interface Call {
  as: Credentials;
  path: string;
  body?: unknown;
  query?: Record<string, string>;
}

interface RouteCalls {
  /** A request the route serves (2xx). */
  ok: (w: Objects) => Call;
  /** A request the route refuses (4xx). */
  refused: (w: Objects) => Call;
}

/** What the calls act on, made through the API before the walk. */
interface Objects {
  alpha: SeededTenant;
  operator: Credentials;
  task: number;
  /** A task the walk deletes (its delete call) and one it backfills. */
  doomedTask: number;
  /** The parent of the edge the walk adds. */
  extraTask: number;
  calendar: number;
  doomedCalendar: number;
  dependency: number;
  webhook: number;
  apiKey: number;
  /** Another live key, for the operator's revoke (a key revoked already records nothing). */
  operatorApiKey: number;
  inboundWebhook: number;
  user: number;
  /** The user the operator's routes act on. */
  opUser: number;
  run: number;
  /** A finished run the walk runs again, an active one its bulk cancel takes, a DOWN executor it removes. */
  finishedRun: number;
  activeRun: number;
  /** Runs waiting for approval (TENANT_ADMIN decides): one the walk approves, one it rejects. */
  waitingRun: number;
  rejectedRun: number;
  downExecutor: number;
  alarm: number;
  group: string;
}

const UNKNOWN = 999_999;

/** One entry per write route of the document: `METHOD /api/path/{param}`. */
const CALLS: Record<string, RouteCalls> = {
  'POST /api/config/apply': {
    ok: (w) => ({ as: w.alpha.adminKey, path: '/api/config/apply', body: { file: 'version: 1\ntasks:\n  - name: walk-as-code\n    executorApp: a\n    handler: h\n    trigger: { kind: MANUAL }\n' } }),
    refused: (w) => ({ as: w.alpha.adminKey, path: '/api/config/apply', body: { file: 'version: 2\n' } }),
  },
  'POST /api/auth/login': {
    ok: () => ({ as: {}, path: '/api/auth/login', body: { tenant: 'alpha', username: 'alpha-admin', password: 'password-123' } }),
    refused: () => ({ as: {}, path: '/api/auth/login', body: { tenant: 'alpha' } }),
  },
  'POST /api/auth/logout': {
    ok: (w) => ({ as: w.alpha.adminKey, path: '/api/auth/logout' }),
    refused: () => ({ as: { Authorization: 'Bearer nope' }, path: '/api/auth/logout' }),
  },
  'POST /api/auth/oidc/logout': {
    ok: (w) => ({ as: w.alpha.adminKey, path: '/api/auth/oidc/logout' }),
    refused: () => ({ as: { Authorization: 'Bearer nope' }, path: '/api/auth/oidc/logout' }),
  },
  'POST /api/auth/password': {
    ok: (w) => ({ as: w.alpha.viewer, path: '/api/auth/password', body: { currentPassword: 'password-123', newPassword: 'password-456' } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/auth/password', body: { currentPassword: 'wrong-password', newPassword: 'password-456' } }),
  },
  'POST /api/tasks': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/tasks', body: cronTask('walk-created') }),
    refused: (w) => ({ as: w.alpha.viewer, path: '/api/tasks', body: cronTask('walk-refused') }),
  },
  'POST /api/tasks/batch': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/tasks/batch', body: { tasks: [cronTask('walk-batch-1'), cronTask('walk-batch-2')] } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/tasks/batch', body: { tasks: [cronTask('walk-batch-3'), cronTask('walk-batch-3')] } }),
  },
  'PUT /api/tasks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}`, body: cronTask('walk-task', { priority: 3 }) }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}`, body: cronTask('walk-task', { trigger: { kind: 'CRON', expression: 'nope', timeZone: 'UTC' } }) }),
  },
  'PATCH /api/tasks/{id}': {
    ok: (w) => ({ as: w.alpha.adminKey, path: `/api/tasks/${w.task}`, body: { priority: 4 } }),
    refused: (w) => ({ as: w.alpha.viewerKey, path: `/api/tasks/${w.task}`, body: { priority: 5 } }),
  },
  'DELETE /api/tasks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.doomedTask}` }),
    refused: () => ({ as: {}, path: `/api/tasks/${UNKNOWN}` }),
  },
  'POST /api/tasks/{id}/versions/{version}/restore': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/versions/1/restore` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/versions/${UNKNOWN}/restore` }),
  },
  'POST /api/tasks/{id}/trigger': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/trigger`, body: {} }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${UNKNOWN}/trigger`, body: {} }),
  },
  'POST /api/tasks/{id}/backfill': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/backfill`, body: { from: T0 - 3 * 86_400_000, to: T0 } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/backfill`, body: { from: T0, to: T0 - 86_400_000 } }),
  },
  'DELETE /api/tasks/{id}/backfill': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/backfill` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${UNKNOWN}/backfill` }),
  },
  'POST /api/tasks/{id}/pause': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/pause` }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/tasks/${w.task}/pause` }),
  },
  'POST /api/tasks/{id}/resume': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/resume` }),
    refused: (w) => ({ as: w.operator, path: `/api/tasks/${w.task}/resume` }),
  },
  'POST /api/task-groups/{group}/pause': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/task-groups/${w.group}/pause` }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/task-groups/${w.group}/pause` }),
  },
  'POST /api/task-groups/{group}/resume': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/task-groups/${w.group}/resume` }),
    refused: (w) => ({ as: w.alpha.viewerKey, path: `/api/task-groups/${w.group}/resume` }),
  },
  'POST /api/dependencies': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/dependencies', body: { parentTaskId: w.extraTask, childTaskId: w.task } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/dependencies', body: { parentTaskId: w.task, childTaskId: w.task } }),
  },
  'PATCH /api/dependencies/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/dependencies/${w.dependency}`, body: { condition: 'ON_COMPLETION' } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/dependencies/${w.dependency}`, body: { condition: 'SOMETIMES' } }),
  },
  'DELETE /api/dependencies/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/dependencies/${w.dependency}` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/dependencies/${UNKNOWN}` }),
  },
  'POST /api/calendars': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/calendars', body: { name: 'walk-holidays', timeZone: 'UTC', dates: ['2026-12-25'] } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/calendars', body: { name: 'walk-bad', timeZone: 'Mars/Olympus', dates: [] } }),
  },
  'PUT /api/calendars/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/calendars/${w.calendar}`, body: { name: 'walk-calendar', timeZone: 'UTC', dates: ['2026-12-24'] } }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/calendars/${w.calendar}`, body: { name: 'walk-calendar', timeZone: 'UTC', dates: [] } }),
  },
  'PATCH /api/calendars/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/calendars/${w.calendar}`, body: { dates: ['2026-12-31'] } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/calendars/${UNKNOWN}`, body: { dates: ['2026-12-31'] } }),
  },
  'DELETE /api/calendars/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/calendars/${w.doomedCalendar}` }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/calendars/${w.calendar}` }),
  },
  'POST /api/runs/{id}/cancel': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/runs/${w.run}/cancel` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/runs/${UNKNOWN}/cancel` }),
  },
  'POST /api/runs/{id}/rerun': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/runs/${w.finishedRun}/rerun` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/runs/${UNKNOWN}/rerun` }),
  },
  'POST /api/runs/{id}/approve': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/runs/${w.waitingRun}/approve`, body: { comment: 'walked' } }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/runs/${w.waitingRun}/approve`, body: {} }),
  },
  'POST /api/runs/{id}/reject': {
    ok: (w) => ({ as: w.alpha.adminKey, path: `/api/runs/${w.rejectedRun}/reject`, body: { comment: 'walked' } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/runs/${w.finishedRun}/reject`, body: {} }),
  },
  'POST /api/runs/bulk-cancel': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/runs/bulk-cancel', body: { ids: [w.activeRun, UNKNOWN] } }),
    refused: (w) => ({ as: w.alpha.viewer, path: '/api/runs/bulk-cancel', body: { ids: [w.activeRun] } }),
  },
  'POST /api/runs/bulk-rerun': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/runs/bulk-rerun', body: { ids: [w.finishedRun] } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/runs/bulk-rerun', body: { ids: [] } }),
  },
  'POST /api/runs/batch': {
    ok: (w) => ({ as: w.alpha.adminKey, path: '/api/runs/batch', body: { runs: [{ taskId: w.task }, { taskId: w.task, params: { n: 1 } }, { taskId: UNKNOWN }] } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/runs/batch', body: { runs: [{ taskId: w.task }, { taskId: UNKNOWN }], atomic: true } }),
  },
  'POST /api/events': {
    ok: (w) => ({ as: w.alpha.adminKey, path: '/api/events', body: { name: 'walk.happened', payload: { n: 1 } } }),
    refused: (w) => ({ as: w.alpha.adminKey, path: '/api/events', body: { name: 'walk happened', payload: {} } }),
  },
  'POST /api/tasks/{id}/copy': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/tasks/${w.task}/copy`, body: { name: 'walk-copy' } }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/tasks/${w.task}/copy`, body: { name: 'walk-copy-refused' } }),
  },
  'DELETE /api/executors/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/executors/${w.downExecutor}` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/executors/${UNKNOWN}` }),
  },
  'PUT /api/me/preferences': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/me/preferences', body: { theme: 'dark', language: 'zh-CN', timeZone: 'Asia/Shanghai' } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/me/preferences', body: { timeZone: 'Mars/Olympus' } }),
  },
  'POST /api/alarms/{id}/ack': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/alarms/${w.alarm}/ack` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/alarms/${UNKNOWN}/ack` }),
  },
  'PUT /api/retention': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/retention', body: { runsMs: 86_400_000, logsMs: null, alarmsMs: null, minRunsKept: 10 } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/retention', body: { runsMs: -1 } }),
  },
  'PUT /api/retention/tasks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/retention/tasks/${w.task}`, body: { runsMs: 3_600_000, minRunsKept: 5 } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/retention/tasks/${UNKNOWN}`, body: { runsMs: 3_600_000, minRunsKept: 5 } }),
  },
  'DELETE /api/retention/tasks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/retention/tasks/${w.task}` }),
    refused: (w) => ({ as: w.alpha.viewer, path: `/api/retention/tasks/${w.task}` }),
  },
  'POST /api/webhooks': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/webhooks', body: { name: 'walk-hook', url: 'http://127.0.0.1:9/walk' } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/webhooks', body: { name: 'walk-hook-2', url: 'ftp://127.0.0.1/' } }),
  },
  'DELETE /api/webhooks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/webhooks/${w.webhook}` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/webhooks/${UNKNOWN}` }),
  },
  'POST /api/inbound-webhooks': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/inbound-webhooks', body: { name: 'walk-hook', event: 'walk.event', scheme: 'GITHUB' } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/inbound-webhooks', body: { name: 'walk-hook-2', event: 'bad name', scheme: 'GITHUB' } }),
  },
  'POST /api/inbound-webhooks/{id}/secret': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/inbound-webhooks/${w.inboundWebhook}/secret`, body: {} }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/inbound-webhooks/${UNKNOWN}/secret`, body: {} }),
  },
  'DELETE /api/inbound-webhooks/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/inbound-webhooks/${w.inboundWebhook}` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/inbound-webhooks/${UNKNOWN}` }),
  },
  'POST /api/api-keys': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/api-keys', body: { name: 'walk-key', role: 'TENANT_VIEWER' } }),
    refused: (w) => ({ as: w.alpha.viewer, path: '/api/api-keys', body: { name: 'walk-key-2' } }),
  },
  'DELETE /api/api-keys/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/api-keys/${w.apiKey}` }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/api-keys/${UNKNOWN}` }),
  },
  'POST /api/executors/xxl-job-token': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/executors/xxl-job-token', body: {} }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/executors/xxl-job-token', body: { token: 'short' } }),
  },
  'POST /api/executors/secret/rotate': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/executors/secret/rotate', body: { overlapSeconds: 60 } }),
    refused: (w) => ({ as: w.alpha.viewer, path: '/api/executors/secret/rotate', body: {} }),
  },
  'POST /api/users': {
    ok: (w) => ({ as: w.alpha.admin, path: '/api/users', body: { username: 'walk-user', password: 'password-789', role: 'TENANT_VIEWER' } }),
    refused: (w) => ({ as: w.alpha.admin, path: '/api/users', body: { username: 'alpha-viewer', password: 'password-789', role: 'TENANT_VIEWER' } }),
  },
  'PATCH /api/users/{id}': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/users/${w.user}`, body: { role: 'TENANT_ADMIN' } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/users/${UNKNOWN}`, body: { role: 'TENANT_ADMIN' } }),
  },
  'POST /api/users/{id}/password': {
    ok: (w) => ({ as: w.alpha.admin, path: `/api/users/${w.user}/password`, body: { password: 'password-abc' } }),
    refused: (w) => ({ as: w.alpha.viewerKey, path: `/api/users/${w.user}/password`, body: { password: 'password-abc' } }),
  },
  'POST /api/operator/users': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/users', body: { username: 'walk-op-user', password: 'password-789', role: 'TENANT_VIEWER', tenantId: 'alpha' } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/users', body: { username: 'walk-op-user-2', password: 'password-789', role: 'TENANT_VIEWER', tenantId: 'nowhere' } }),
  },
  'PATCH /api/operator/users/{id}': {
    ok: (w) => ({ as: w.operator, path: `/api/operator/users/${w.opUser}`, body: { disabled: true } }),
    refused: (w) => ({ as: w.alpha.admin, path: `/api/operator/users/${w.opUser}`, body: { disabled: false } }),
  },
  'POST /api/operator/users/{id}/password': {
    ok: (w) => ({ as: w.operator, path: `/api/operator/users/${w.user}/password`, body: { password: 'password-def' } }),
    refused: (w) => ({ as: w.operator, path: `/api/operator/users/${UNKNOWN}/password`, body: { password: 'password-def' } }),
  },
  'DELETE /api/operator/users/{id}': {
    ok: (w) => ({ as: w.operator, path: `/api/operator/users/${w.opUser}` }),
    refused: (w) => ({ as: w.operator, path: `/api/operator/users/${UNKNOWN}` }),
  },
  'POST /api/operator/tenants': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/tenants', body: { id: 'walk-tenant', name: 'Walk' } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/tenants', body: { id: 'alpha', name: 'Again' } }),
  },
  'PATCH /api/operator/tenants/{id}': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/tenants/alpha', body: { ratePerSec: 500 } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/tenants/nowhere', body: { ratePerSec: 500 } }),
  },
  'POST /api/operator/tenants/{id}/executor-secret/rotate': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/tenants/alpha/executor-secret/rotate', body: { overlapSeconds: 0 } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/tenants/nowhere/executor-secret/rotate', body: {} }),
  },
  'POST /api/operator/engine-groups': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/engine-groups', body: { name: 'walk-group', description: 'walked' } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/engine-groups', body: { name: 'default' } }),
  },
  'PATCH /api/operator/engine-groups/{name}': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/engine-groups/walk-group', body: { description: 'walked again' } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/engine-groups/nowhere', body: { description: 'x' } }),
  },
  'DELETE /api/operator/engine-groups/{name}': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/engine-groups/walk-group' }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/engine-groups/default' }), // in use: 409
  },
  'POST /api/operator/api-keys': {
    ok: (w) => ({ as: w.operator, path: '/api/operator/api-keys', body: { tenantId: 'alpha', name: 'walk-op-key' } }),
    refused: (w) => ({ as: w.operator, path: '/api/operator/api-keys', body: { tenantId: 'nowhere', name: 'walk-op-key' } }),
  },
  'DELETE /api/operator/api-keys/{id}': {
    ok: (w) => ({ as: w.operator, path: `/api/operator/api-keys/${w.operatorApiKey}` }),
    refused: (w) => ({ as: w.operator, path: `/api/operator/api-keys/${UNKNOWN}` }),
  },
};

interface DocOperation {
  'x-audit-action'?: string;
  'x-audit-exempt'?: string;
}

async function auditCount(t: ConsoleTestApp, ds: import('typeorm').DataSource): Promise<{ n: number; last: string | null }> {
  void t;
  const [row] = await ds.query('SELECT COUNT(*) AS n, MAX(id) AS last FROM audit_log');
  const [last] = row.last === null ? [{ action: null }] : await ds.query('SELECT action FROM audit_log WHERE id = ?', [row.last]);
  return { n: Number(row.n), last: last.action };
}

/** Audited routes that need a server this walk does not start, and the test that checks their one record instead. */
const ELSEWHERE: Record<string, string> = {
  'POST /api/auth/ldap/login': 'test/console/ldap-sign-in.e2e-spec.ts (a slapd)',
};

describe.each(TEST_DATABASES)('audit coverage on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let w: Objects;
  let writes: Array<{ key: string; action: string | null; exempt: string | null }>;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    const alpha = await seedTenant(t, db.dataSource, 'alpha');
    const operator = await seedOperator(t, db.dataSource);
    const http = t.http;
    const ok = async (res: { status: number; body: Record<string, unknown> }) => {
      if (res.status >= 300) throw new Error(`setup: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await ok(await http().patch('/api/operator/tenants/alpha').set(operator).send({ executorNetworks: ['127.0.0.0/8'] }));
    const task = (await ok(await http().post('/api/tasks').set(alpha.admin).send(cronTask('walk-task', { group: 'walkers', trigger: { kind: 'FIXED_RATE', intervalMs: 86_400_000 } })))).id as number;
    const doomedTask = (await ok(await http().post('/api/tasks').set(alpha.admin).send(cronTask('walk-doomed')))).id as number;
    const calendar = (await ok(await http().post('/api/calendars').set(alpha.admin).send({ name: 'walk-calendar', timeZone: 'UTC', dates: [] }))).id as number;
    const doomedCalendar = (await ok(await http().post('/api/calendars').set(alpha.admin).send({ name: 'walk-doomed', timeZone: 'UTC', dates: [] }))).id as number;
    const other = (await ok(await http().post('/api/tasks').set(alpha.admin).send(cronTask('walk-other')))).id as number;
    const dependency = (await ok(await http().post('/api/dependencies').set(alpha.admin).send({ parentTaskId: task, childTaskId: other }))).id as number;
    const webhook = (await ok(await http().post('/api/webhooks').set(alpha.admin).send({ name: 'walk-seeded-hook', url: 'http://127.0.0.1:9/seeded' }))).id as number;
    const apiKey = (await ok(await http().post('/api/api-keys').set(alpha.admin).send({ name: 'walk-seeded-key' }))).id as number;
    const operatorApiKey = (await ok(await http().post('/api/api-keys').set(alpha.admin).send({ name: 'walk-seeded-key-2' }))).id as number;
    const inboundWebhook = (await ok(await http().post('/api/inbound-webhooks').set(alpha.admin).send({ name: 'walk-seeded-hook', event: 'walk.event', scheme: 'STRIPE' }))).id as number;
    const user = (await ok(await http().post('/api/users').set(alpha.admin).send({ username: 'walk-seeded-user', password: 'password-123', role: 'TENANT_VIEWER' }))).id as number;
    const extraTask = (await ok(await http().post('/api/tasks').set(alpha.admin).send(cronTask('walk-extra')))).id as number;
    const opUser = (await ok(await http().post('/api/users').set(alpha.admin).send({ username: 'walk-op-target', password: 'password-123', role: 'TENANT_VIEWER' }))).id as number;
    const run = (await insertRun(db.dataSource, 'alpha', task)).id;
    const finishedRun = (await insertRun(db.dataSource, 'alpha', task, { state: 'SUCCEEDED', finishedAt: T0 - 1000 })).id;
    const activeRun = (await insertRun(db.dataSource, 'alpha', task)).id;
    const waitingRun = (await insertWaitingRun(db.dataSource, 'alpha', task, { role: 'TENANT_ADMIN', users: [] })).id;
    const rejectedRun = (await insertWaitingRun(db.dataSource, 'alpha', task, { role: 'TENANT_ADMIN', users: [] })).id;
    const downExecutor = (await insertExecutor(db.dataSource, 'alpha')).id;
    await db.dataSource.query("UPDATE executors SET state = 'DOWN' WHERE id = ?", [downExecutor]);
    const alarm = (await insertAlarm(db.dataSource, 'alpha')).id;
    w = { alpha, operator, task, doomedTask, extraTask, opUser, calendar, doomedCalendar, dependency, webhook, apiKey, operatorApiKey, inboundWebhook, user, run, finishedRun, activeRun, waitingRun, rejectedRun, downExecutor, alarm, group: 'walkers' };
    const doc = (await http().get('/api/docs-json')).body as { paths: Record<string, Record<string, DocOperation>> };
    writes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, action: op['x-audit-action'] ?? null, exempt: op['x-audit-exempt'] ?? null })),
    );
  });
  afterAll(() => t?.close());

  it('every write route of the OpenAPI document is audited or says why it changes nothing', () => {
    expect(writes.length).toBeGreaterThan(40);
    expect(writes.filter((r) => r.action === null && r.exempt === null).map((r) => r.key)).toEqual([]);
    const audited = writes.filter((r) => r.action !== null);
    // The coverage figure of the closing note: routes that write / routes with a record.
    console.log(`audit coverage (${kind}): ${audited.length} writing routes, ${audited.length} with a record; exempt (change nothing): ${writes.filter((r) => r.exempt).map((r) => r.key).join(', ')}`);
    expect(audited.map((r) => r.key).filter((key) => !CALLS[key] && !ELSEWHERE[key])).toEqual([]);
  });

  it('each audited route records exactly one record for a change and none when refused', async () => {
    // Order matters where one call needs another's effect (the engine group's update and delete follow its create); the document's order gives it.
    const results: string[] = [];
    for (const route of writes.filter((r) => r.action !== null && !ELSEWHERE[r.key])) {
      const calls = CALLS[route.key];
      const method = route.key.split(' ')[0].toLowerCase() as Method;
      const send = async (call: Call) => {
        let req = t.http()[method](call.path).set(call.as);
        if (call.query) req = req.query(call.query);
        return call.body === undefined ? req : req.send(call.body as object);
      };
      const before = await auditCount(t, db.dataSource);
      const refused = await send(calls.refused(w));
      const afterRefused = await auditCount(t, db.dataSource);
      const served = await send(calls.ok(w));
      const afterServed = await auditCount(t, db.dataSource);
      if (refused.status < 400 || refused.status >= 500) results.push(`${route.key}: the refused call answered ${refused.status}`);
      if (afterRefused.n !== before.n) results.push(`${route.key}: a refused call (${refused.status}) wrote ${afterRefused.n - before.n} records`);
      if (served.status >= 300) results.push(`${route.key}: the call answered ${served.status} ${JSON.stringify(served.body)}`);
      else if (afterServed.n - afterRefused.n !== 1 || afterServed.last !== route.action) {
        results.push(`${route.key}: wrote ${afterServed.n - afterRefused.n} records (last ${afterServed.last}), expected one ${route.action}`);
      }
    }
    expect(results).toEqual([]);
  });

  it('a failed login is recorded (an anonymous actor, its address), a throttled one is not', async () => {
    const res = await t.http().post('/api/auth/login').send({ tenant: 'alpha', username: 'alpha-admin', password: 'wrong-password' });
    expect(res.status).toBe(401);
    const [row] = await db.dataSource.query("SELECT actor_kind, actor_name, source_address, tenant_id FROM audit_log WHERE action = 'auth.login-failed' ORDER BY id DESC");
    expect(row).toMatchObject({ actor_kind: 'anonymous', actor_name: 'alpha-admin', tenant_id: 'alpha' });
    expect(row.source_address).toMatch(/127\.0\.0\.1/);
  });
});
