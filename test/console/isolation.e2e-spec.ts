/**
 * Tenant isolation and roles, walked over EVERY console route.
 *
 * The route table below is checked against the OpenAPI document the app serves: a route added
 * to the console without a line here fails the "covers every route" test, and so does a line
 * for a route that no longer exists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEntity, TaskDependencyEntity, TaskEntity, AlarmEntity, ApiKeyEntity, CalendarEntity, UserEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import {
  cronTask,
  insertAlarm,
  insertExecutor,
  insertRun,
  insertRunLog,
  seedOperator,
  seedTenant,
  startConsole,
  type ConsoleTestApp,
  type Credentials,
  type SeededTenant,
} from './console-test-kit';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Names of the tasks the batch route creates, new on every call. */
let batchSeq = 0;
/** API keys made by the routes table: each under its own name. */
let keysMade = 0;

/** Ids of tenant B's objects (and a few of A's), filled in by beforeAll. */
interface World {
  a: SeededTenant;
  b: SeededTenant;
  operator: Credentials;
  aTaskId: number;
  bTaskId: number;
  bTask2Id: number;
  bGroup: string;
  bDependencyId: number;
  bCalendarId: number;
  bCalendarName: string;
  bRunId: number;
  bAlarmId: number;
  bApiKeyId: number;
  bWebhookId: number;
  bInboundWebhookId: number;
  bEventId: number;
  bExecutorId: number;
  bUserId: number;
  bRunCount: number;
  aRunCount: number;
}

interface Call {
  url: string;
  body?: unknown;
}

/**
 * How a route is checked with tenant A's admin credentials against tenant B:
 * - `foreign`: the call names B's object; the answer must be 404 (or 403) and B's object unchanged;
 * - `list`: the call (filtered by B's ids where it can be) answers 200 and shows none of B's rows;
 * - `own`: the call acts on A's own tenant only (create, group pause, key list…), checked by `check`;
 * - `public` / `self`: no tenant object involved (login, health, me, logout).
 */
type Kind = 'foreign' | 'list' | 'own' | 'public' | 'self';

interface Route {
  method: Method;
  /** As in the OpenAPI document. */
  path: string;
  /** operator routes are for OPERATOR only; tenant routes for tenant principals. */
  area: 'tenant' | 'operator' | 'auth';
  kind: Kind;
  call: (w: World) => Call;
  /** For `foreign`: also acceptable statuses besides 404/403 (e.g. 400 for a name-based reference). */
  alsoAccept?: number[];
  check?: (w: World, body: unknown) => void;
  /** A write the run's approval step admits, not the role: a viewer it names may call it (others: 403, or 404/409 for a run they may not decide on). */
  decidedByStep?: true;
}

const items = (body: unknown) => (body as { items: Array<Record<string, unknown>> }).items;
const arr = (body: unknown) => body as Array<Record<string, unknown>>;

const ROUTES: Route[] = [
  // auth & health
  { method: 'POST', path: '/api/auth/login', area: 'auth', kind: 'public', call: () => ({ url: '/api/auth/login', body: { username: 'nobody', password: 'x' } }) },
  { method: 'POST', path: '/api/auth/logout', area: 'auth', kind: 'self', call: () => ({ url: '/api/auth/logout' }) },
  { method: 'GET', path: '/api/auth/me', area: 'auth', kind: 'self', call: () => ({ url: '/api/auth/me' }) },
  { method: 'POST', path: '/api/auth/password', area: 'auth', kind: 'self', call: () => ({ url: '/api/auth/password', body: { currentPassword: 'x', newPassword: 'new-password-1' } }) },
  { method: 'GET', path: '/api/health', area: 'auth', kind: 'public', call: () => ({ url: '/api/health' }) },
  { method: 'GET', path: '/api/me/preferences', area: 'auth', kind: 'self', call: () => ({ url: '/api/me/preferences' }) },
  { method: 'PUT', path: '/api/me/preferences', area: 'auth', kind: 'self', call: () => ({ url: '/api/me/preferences', body: { theme: 'dark' } }) },
  // single sign-on (not configured here: the start lands on the login page, LDAP is a 404)
  { method: 'GET', path: '/api/auth/sso', area: 'auth', kind: 'public', call: () => ({ url: '/api/auth/sso' }) },
  { method: 'GET', path: '/api/auth/oidc/start', area: 'auth', kind: 'public', call: () => ({ url: '/api/auth/oidc/start' }) },
  { method: 'POST', path: '/api/auth/oidc/logout', area: 'auth', kind: 'self', call: () => ({ url: '/api/auth/oidc/logout' }) },
  { method: 'POST', path: '/api/auth/ldap/login', area: 'auth', kind: 'public', call: () => ({ url: '/api/auth/ldap/login', body: { username: 'nobody', password: 'x' } }) },
  { method: 'GET', path: '/api/config/schema', area: 'auth', kind: 'public', call: () => ({ url: '/api/config/schema' }) },

  // tasks as code: A's file acts on A only; B's calendar name means nothing in A
  { method: 'GET', path: '/api/config/export', area: 'tenant', kind: 'list', call: () => ({ url: '/api/config/export' }) },
  {
    method: 'POST', path: '/api/config/plan', area: 'tenant', kind: 'own',
    call: (w) => ({ url: '/api/config/plan', body: { file: `version: 1\ncalendars:\n  - { name: ${w.bCalendarName}, timeZone: UTC, dates: [] }\n` } }),
    // A's own calendar of that name (an earlier row may have made it), never B's: created or updated in A.
    check: (w, body) => expect((body as { changes: Array<{ kind: string; name: string }> }).changes.map((c) => `${c.kind}:${c.name}`)).toEqual([`calendar:${w.bCalendarName}`]),
  },
  {
    method: 'POST', path: '/api/config/apply', area: 'tenant', kind: 'own',
    call: (w) => ({ url: '/api/config/apply', body: { file: `version: 1\ntasks:\n  - name: a-from-file\n    executorApp: a\n    handler: h\n    trigger: { kind: MANUAL }\n    calendarName: ${w.bCalendarName}\n` } }),
    alsoAccept: [400],
  },

  // tasks
  {
    method: 'GET', path: '/api/tasks', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/tasks?group=${w.bGroup}&limit=500` }),
    check: (w, body) => expect(items(body).map((t) => t.id)).not.toContain(w.bTaskId),
  },
  {
    method: 'POST', path: '/api/tasks', area: 'tenant', kind: 'own',
    // B's calendar name means nothing in A: the task is refused as naming an unknown calendar.
    call: (w) => ({ url: '/api/tasks', body: cronTask('a-uses-b-calendar', { calendarName: w.bCalendarName }) }),
    alsoAccept: [400],
  },
  {
    method: 'POST', path: '/api/tasks/batch', area: 'tenant', kind: 'own',
    // Created in A whatever the body says (a tenantId field is refused as unknown); B is unchanged (snapshotB).
    call: () => ({ url: '/api/tasks/batch', body: { tasks: [cronTask(`a-batch-${++batchSeq}`), cronTask(`a-batch-${++batchSeq}`)] } }),
    check: (w, body) => {
      const created = (body as { items: Array<{ tenantId?: string; name: string }> }).items;
      expect(created.map((t) => t.name)).toEqual([`a-batch-${batchSeq - 1}`, `a-batch-${batchSeq}`]);
      for (const task of created) if (task.tenantId !== undefined) expect(task.tenantId).toBe(w.a.id);
    },
  },
  { method: 'GET', path: '/api/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}` }) },
  { method: 'PUT', path: '/api/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}`, body: cronTask('hijacked') }) },
  { method: 'PATCH', path: '/api/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}`, body: { handler: 'evil' } }) },
  { method: 'DELETE', path: '/api/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}?cascade=true` }) },
  { method: 'POST', path: '/api/tasks/{id}/trigger', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/trigger`, body: {} }) },
  { method: 'POST', path: '/api/tasks/{id}/copy', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/copy`, body: { name: 'stolen-copy' } }) },
  { method: 'POST', path: '/api/tasks/{id}/pause', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/pause` }) },
  { method: 'POST', path: '/api/tasks/{id}/resume', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/resume` }) },
  { method: 'GET', path: '/api/tasks/{id}/stats', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/stats` }) },
  {
    method: 'POST', path: '/api/task-groups/{group}/pause', area: 'tenant', kind: 'own',
    call: (w) => ({ url: `/api/task-groups/${w.bGroup}/pause` }),
    check: (_w, body) => expect((body as { tasks: number }).tasks).toBe(0),
  },
  {
    method: 'POST', path: '/api/task-groups/{group}/resume', area: 'tenant', kind: 'own',
    call: (w) => ({ url: `/api/task-groups/${w.bGroup}/resume` }),
    check: (_w, body) => expect((body as { tasks: number }).tasks).toBe(0),
  },

  // dependencies
  {
    method: 'GET', path: '/api/dependencies', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/dependencies?taskId=${w.bTaskId}` }),
    check: (_w, body) => expect(arr(body)).toEqual([]),
  },
  {
    method: 'POST', path: '/api/dependencies', area: 'tenant', kind: 'foreign',
    call: (w) => ({ url: '/api/dependencies', body: { parentTaskId: w.bTask2Id, childTaskId: w.bTaskId } }),
  },
  { method: 'GET', path: '/api/dependencies/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/dependencies/${w.bDependencyId}` }) },
  { method: 'PATCH', path: '/api/dependencies/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/dependencies/${w.bDependencyId}`, body: { condition: 'ON_FAILURE' } }) },
  { method: 'DELETE', path: '/api/dependencies/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/dependencies/${w.bDependencyId}` }) },

  // calendars
  {
    method: 'GET', path: '/api/calendars', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/calendars' }),
    check: (w, body) => expect(arr(body).map((c) => c.id)).not.toContain(w.bCalendarId),
  },
  {
    method: 'POST', path: '/api/calendars', area: 'tenant', kind: 'own',
    // The same name as B's calendar is free in A: names are per tenant.
    call: (w) => ({ url: '/api/calendars', body: { name: w.bCalendarName, timeZone: 'UTC', dates: ['2026-12-25'] } }),
    alsoAccept: [409], // the second pass (API key) finds the calendar the first pass made
  },
  { method: 'GET', path: '/api/calendars/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/calendars/${w.bCalendarId}` }) },
  { method: 'PUT', path: '/api/calendars/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/calendars/${w.bCalendarId}`, body: { name: 'x', timeZone: 'UTC', dates: [] } }) },
  { method: 'PATCH', path: '/api/calendars/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/calendars/${w.bCalendarId}`, body: { dates: [] } }) },
  { method: 'DELETE', path: '/api/calendars/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/calendars/${w.bCalendarId}` }) },

  // runs
  {
    method: 'GET', path: '/api/runs', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/runs?taskId=${w.bTaskId}&limit=500` }),
    check: (_w, body) => expect(items(body)).toEqual([]),
  },
  { method: 'GET', path: '/api/runs/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/runs/${w.bRunId}` }) },
  { method: 'POST', path: '/api/runs/{id}/cancel', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/runs/${w.bRunId}/cancel` }) },
  { method: 'POST', path: '/api/runs/{id}/approve', area: 'tenant', kind: 'foreign', decidedByStep: true, call: (w) => ({ url: `/api/runs/${w.bRunId}/approve`, body: { comment: 'from A' } }) },
  { method: 'POST', path: '/api/runs/{id}/reject', area: 'tenant', kind: 'foreign', decidedByStep: true, call: (w) => ({ url: `/api/runs/${w.bRunId}/reject`, body: {} }) },
  { method: 'POST', path: '/api/runs/{id}/rerun', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/runs/${w.bRunId}/rerun` }) },
  { method: 'GET', path: '/api/runs/{id}/attempts', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/runs/${w.bRunId}/attempts` }) },
  { method: 'GET', path: '/api/runs/{id}/log', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/runs/${w.bRunId}/log` }) },
  {
    method: 'POST', path: '/api/runs/bulk-cancel', area: 'tenant', kind: 'own',
    call: (w) => ({ url: '/api/runs/bulk-cancel', body: { ids: [w.bRunId] } }),
    check: (w, body) => expect((body as { results: unknown[] }).results).toEqual([expect.objectContaining({ id: w.bRunId, status: 404, runId: null })]),
  },
  {
    method: 'POST', path: '/api/runs/bulk-rerun', area: 'tenant', kind: 'own',
    call: (w) => ({ url: '/api/runs/bulk-rerun', body: { ids: [w.bRunId] } }),
    check: (w, body) => expect((body as { results: unknown[] }).results).toEqual([expect.objectContaining({ id: w.bRunId, status: 404, runId: null })]),
  },
  {
    method: 'POST', path: '/api/events', area: 'tenant', kind: 'own',
    call: () => ({ url: '/api/events', body: { name: 'b.only', payload: {} } }),
    check: (w, body) => {
      expect((body as { runIds: unknown[] }).runIds).toEqual([]);
      expect((body as { id: number }).id).not.toBe(w.bEventId);
    },
  },
  { method: 'GET', path: '/api/events', area: 'tenant', kind: 'list', call: () => ({ url: '/api/events?name=b.only&limit=500' }), check: (w, body) => expect(items(body).map((e) => e.id)).not.toContain(w.bEventId) },
  { method: 'GET', path: '/api/events/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/events/${w.bEventId}` }) },
  {
    method: 'POST', path: '/api/runs/batch', area: 'tenant', kind: 'own',
    call: (w) => ({ url: '/api/runs/batch', body: { runs: [{ taskId: w.bTaskId }] } }),
    check: (w, body) => expect((body as { results: unknown[] }).results).toEqual([expect.objectContaining({ status: 404 })]),
  },
  {
    method: 'GET', path: '/api/runs/search', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/runs/search?q=%7B%7D&field=params&from=0&to=9999999999999&limit=500' }),
    check: (w, body) => expect(items(body).map((r) => r.taskId)).not.toContain(w.bTaskId),
  },
  {
    method: 'GET', path: '/api/dashboard', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/dashboard' }),
    check: (w, body) => expect((body as { tenantId: string }).tenantId).toBe(w.a.id),
  },

  // executors
  {
    method: 'GET', path: '/api/executors', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/executors?app=billing' }),
    check: (w, body) => expect(arr(body).map((e) => e.id)).not.toContain(w.bExecutorId),
  },
  { method: 'GET', path: '/api/executors/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/executors/${w.bExecutorId}` }) },
  { method: 'DELETE', path: '/api/executors/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/executors/${w.bExecutorId}` }) },
  {
    method: 'GET', path: '/api/load', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/load' }),
    check: (w, body) => expect(items(body).map((t) => t.tenantId)).toEqual([w.a.id]),
  },
  {
    method: 'GET', path: '/api/executors/connection', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/executors/connection' }),
    check: (w, body) => expect((body as { tenantId: string }).tenantId).toBe(w.a.id),
  },
  {
    method: 'POST', path: '/api/executors/xxl-job-token', area: 'tenant', kind: 'own',
    call: () => ({ url: '/api/executors/xxl-job-token', body: {} }),
    check: (w, body) => expect((body as { tenantId: string; adminPath: string })).toMatchObject({ tenantId: w.a.id, adminPath: `/xxl-job-admin/${w.a.id}` }),
  },
  {
    method: 'POST', path: '/api/executors/secret/rotate', area: 'tenant', kind: 'own',
    call: () => ({ url: '/api/executors/secret/rotate', body: { overlapSeconds: 60 } }),
    check: (w, body) => expect((body as { tenantId: string }).tenantId).toBe(w.a.id),
  },

  // alarms
  {
    method: 'GET', path: '/api/alarms', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/alarms?taskId=${w.bTaskId}&limit=500` }),
    check: (_w, body) => expect(items(body)).toEqual([]),
  },
  { method: 'GET', path: '/api/alarms/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/alarms/${w.bAlarmId}` }) },
  { method: 'POST', path: '/api/alarms/{id}/ack', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/alarms/${w.bAlarmId}/ack` }) },

  // stats
  {
    method: 'GET', path: '/api/stats', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/stats?windowMs=86400000' }),
    check: (w, body) => expect((body as { total: number }).total).toBe(w.aRunCount),
  },

  // the web console's read models (apps/console/src/web)
  {
    method: 'GET', path: '/api/ui/task-summaries', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/ui/task-summaries?ids=${w.bTaskId},${w.aTaskId}` }),
    check: (w, body) => expect(arr(body).map((s) => s.taskId)).toEqual([w.aTaskId]),
  },
  { method: 'GET', path: '/api/ui/stats-series', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/ui/stats-series?taskId=${w.bTaskId}` }) },
  { method: 'POST', path: '/api/tasks/{id}/backfill', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/backfill`, body: { from: 0, to: 3_600_000 } }) },
  { method: 'DELETE', path: '/api/tasks/{id}/backfill', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/backfill` }) },
  // webhooks (TENANT_ADMIN)
  {
    method: 'GET', path: '/api/webhooks', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/webhooks' }),
    check: (_w, body) => expect(arr(body).every((h) => !('secret' in h))).toBe(true),
  },
  {
    method: 'POST', path: '/api/webhooks', area: 'tenant', kind: 'own', alsoAccept: [409],
    call: () => ({ url: '/api/webhooks', body: { name: 'alpha-hook', url: 'http://127.0.0.1:9/hook' } }),
  },
  { method: 'DELETE', path: '/api/webhooks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/webhooks/${w.bWebhookId}` }) },
  { method: 'POST', path: '/api/webhooks/{id}/test', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/webhooks/${w.bWebhookId}/test` }) },
  // inbound webhooks (TENANT_ADMIN); their public receiving route names no tenant (its signature is the credential)
  {
    method: 'GET', path: '/api/inbound-webhooks', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/inbound-webhooks' }),
    check: (w, body) => {
      expect(arr(body).map((h) => h.id)).not.toContain(w.bInboundWebhookId);
      expect(arr(body).every((h) => !('secret' in h))).toBe(true);
    },
  },
  {
    method: 'POST', path: '/api/inbound-webhooks', area: 'tenant', kind: 'own', alsoAccept: [409],
    call: () => ({ url: '/api/inbound-webhooks', body: { name: 'a-inbound', event: 'a.happened', scheme: 'GITHUB' } }),
  },
  { method: 'DELETE', path: '/api/inbound-webhooks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/inbound-webhooks/${w.bInboundWebhookId}` }) },
  { method: 'POST', path: '/api/inbound-webhooks/{id}/secret', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/inbound-webhooks/${w.bInboundWebhookId}/secret`, body: {} }) },
  { method: 'POST', path: '/api/hooks/{publicId}', area: 'auth', kind: 'public', call: () => ({ url: `/api/hooks/ih_${'A'.repeat(43)}`, body: {} }) },
  // retention
  {
    method: 'GET', path: '/api/retention', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/retention' }),
    check: (w, body) => expect((body as { tasks: Array<{ taskId: number }> }).tasks.map((x) => x.taskId)).not.toContain(w.bTaskId),
  },
  {
    method: 'PUT', path: '/api/retention', area: 'tenant', kind: 'own',
    call: () => ({ url: '/api/retention', body: { runsMs: 86_400_000 } }),
    check: (_w, body) => expect((body as { tenant: { runsMs: number } }).tenant.runsMs).toBe(86_400_000),
  },
  { method: 'PUT', path: '/api/retention/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/retention/tasks/${w.bTaskId}`, body: { runsMs: 86_400_000 } }) },
  { method: 'DELETE', path: '/api/retention/tasks/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/retention/tasks/${w.bTaskId}` }) },
  // any principal: no tenant data, the domain's trigger math only
  { method: 'POST', path: '/api/cron/preview', area: 'auth', kind: 'self', call: () => ({ url: '/api/cron/preview', body: { expression: '0 0 * * * *', timeZone: 'UTC' } }) },

  // the tenant's API keys
  {
    method: 'GET', path: '/api/api-keys', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/api-keys' }),
    check: (w, body) => {
      expect(arr(body).map((k) => k.id)).not.toContain(w.bApiKeyId);
      expect(new Set(arr(body).map((k) => k.tenantId))).toEqual(new Set([w.a.id]));
    },
  },
  {
    method: 'POST', path: '/api/api-keys', area: 'tenant', kind: 'own',
    call: () => ({ url: '/api/api-keys', body: { name: `a-new-key-${++keysMade}`, role: 'TENANT_VIEWER' } }), // a name is one live key
    check: (w, body) => expect((body as { tenantId: string }).tenantId).toBe(w.a.id),
  },
  { method: 'DELETE', path: '/api/api-keys/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/api-keys/${w.bApiKeyId}` }) },
  // users (TENANT_ADMIN only)
  {
    method: 'GET', path: '/api/users', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/users' }),
    check: (w, body) => expect(arr(body).every((u) => u.tenantId === w.a.id)).toBe(true),
  },
  {
    method: 'POST', path: '/api/users', area: 'tenant', kind: 'own', alsoAccept: [409],
    call: () => ({ url: '/api/users', body: { username: 'alpha-new-user', password: 'password-123', role: 'TENANT_VIEWER' } }),
    check: (w, body) => expect((body as { tenantId: string }).tenantId).toBe(w.a.id),
  },
  { method: 'PATCH', path: '/api/users/{id}', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/users/${w.bUserId}`, body: { disabled: true } }) },
  { method: 'POST', path: '/api/users/{id}/password', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/users/${w.bUserId}/password`, body: { password: 'hijacked-123' } }) },

  // operator
  { method: 'GET', path: '/api/operator/tenants', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/tenants' }) },
  { method: 'POST', path: '/api/operator/tenants', area: 'operator', kind: 'own', call: () => ({ url: '/api/operator/tenants', body: { id: 'evil', name: 'Evil', engineGroup: 'default' } }) },
  { method: 'GET', path: '/api/operator/tenants/{id}', area: 'operator', kind: 'foreign', call: (w) => ({ url: `/api/operator/tenants/${w.b.id}` }) },
  { method: 'GET', path: '/api/operator/tenants/{id}/dashboard', area: 'operator', kind: 'foreign', call: (w) => ({ url: `/api/operator/tenants/${w.b.id}/dashboard` }) },
  { method: 'POST', path: '/api/operator/tenants/{id}/executor-secret/rotate', area: 'operator', kind: 'foreign', call: (w) => ({ url: `/api/operator/tenants/${w.b.id}/executor-secret/rotate`, body: {} }) },
  { method: 'PATCH', path: '/api/operator/tenants/{id}', area: 'operator', kind: 'foreign', call: (w) => ({ url: `/api/operator/tenants/${w.b.id}`, body: { name: 'pwned' } }) },
  { method: 'GET', path: '/api/operator/engine-groups', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/engine-groups' }) },
  { method: 'POST', path: '/api/operator/engine-groups', area: 'operator', kind: 'own', call: () => ({ url: '/api/operator/engine-groups', body: { name: 'evil' } }) },
  { method: 'GET', path: '/api/operator/engine-groups/{name}', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/engine-groups/default' }) },
  { method: 'PATCH', path: '/api/operator/engine-groups/{name}', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/engine-groups/default', body: { description: 'pwned' } }) },
  { method: 'DELETE', path: '/api/operator/engine-groups/{name}', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/engine-groups/default' }) },
  { method: 'GET', path: '/api/operator/engine-nodes', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/engine-nodes' }) },
  { method: 'GET', path: '/api/operator/load', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/load' }) },
  { method: 'GET', path: '/api/operator/dashboards', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/dashboards' }) },
  { method: 'GET', path: '/api/operator/users', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/users' }) },
  { method: 'POST', path: '/api/operator/users', area: 'operator', kind: 'own', call: (w) => ({ url: '/api/operator/users', body: { username: 'evil', password: 'password-123', role: 'TENANT_ADMIN', tenantId: w.b.id } }) },
  { method: 'DELETE', path: '/api/operator/users/{id}', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/users/1' }) },
  { method: 'PATCH', path: '/api/operator/users/{id}', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/users/1', body: { disabled: true } }) },
  { method: 'POST', path: '/api/operator/users/{id}/password', area: 'operator', kind: 'foreign', call: () => ({ url: '/api/operator/users/1/password', body: { password: 'hijacked-123' } }) },
  { method: 'GET', path: '/api/operator/api-keys', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/api-keys' }) },
  { method: 'POST', path: '/api/operator/api-keys', area: 'operator', kind: 'own', call: (w) => ({ url: '/api/operator/api-keys', body: { tenantId: w.b.id, name: 'evil', role: 'TENANT_ADMIN' } }) },
  { method: 'DELETE', path: '/api/operator/api-keys/{id}', area: 'operator', kind: 'foreign', call: (w) => ({ url: `/api/operator/api-keys/${w.bApiKeyId}` }) },
  // task versions
  { method: 'GET', path: '/api/tasks/{id}/versions', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/versions` }) },
  { method: 'POST', path: '/api/tasks/{id}/versions/{version}/restore', area: 'tenant', kind: 'foreign', call: (w) => ({ url: `/api/tasks/${w.bTaskId}/versions/1/restore` }) },
  // audit log (TENANT_ADMIN; the operator's across tenants)
  {
    method: 'GET', path: '/api/audit', area: 'tenant', kind: 'list',
    call: () => ({ url: '/api/audit?limit=500' }),
    check: (w, body) => expect(new Set(items(body).map((r) => r.tenantId))).toEqual(new Set([w.a.id])),
  },
  {
    method: 'GET', path: '/api/audit/export', area: 'tenant', kind: 'list',
    call: (w) => ({ url: `/api/audit/export?objectType=task&objectId=${w.bTaskId}` }),
  },
  { method: 'GET', path: '/api/operator/audit', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/audit' }) },
  { method: 'GET', path: '/api/operator/audit/export', area: 'operator', kind: 'list', call: () => ({ url: '/api/operator/audit/export' }) },
];

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const tenantRoutes = ROUTES.filter((r) => r.area === 'tenant');
const operatorRoutes = ROUTES.filter((r) => r.area === 'operator');
const isWrite = (r: Route) => r.method !== 'GET';

describe.each(TEST_DATABASES)('console isolation and roles on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let w: World;

  function send(route: Route, creds: Credentials) {
    const { url, body } = route.call(w);
    const http = t.http();
    const req =
      route.method === 'GET' ? http.get(url)
      : route.method === 'POST' ? http.post(url)
      : route.method === 'PUT' ? http.put(url)
      : route.method === 'PATCH' ? http.patch(url)
      : http.delete(url);
    req.set(creds);
    return body === undefined ? req : req.send(body as object);
  }

  /** Tenant B's rows as they must stay whatever A does. */
  async function snapshotB() {
    const ds = db.dataSource;
    return {
      tasks: await ds.getRepository(TaskEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      deps: await ds.getRepository(TaskDependencyEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      calendars: await ds.getRepository(CalendarEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      runs: await ds.getRepository(RunEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      alarms: await ds.getRepository(AlarmEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      keys: await ds.getRepository(ApiKeyEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
      users: await ds.getRepository(UserEntity).find({ where: { tenantId: w.b.id }, order: { id: 'ASC' } }),
    };
  }

  beforeAll(async () => {
    const ds = db.dataSource;
    t = await startConsole(ds);
    const operator = await seedOperator(t, ds);
    const a = await seedTenant(t, ds, 'alpha');
    const b = await seedTenant(t, ds, 'bravo');
    // The webhooks below point at 127.0.0.1: the operator allows loopback for both tenants.
    for (const id of [a.id, b.id]) expect((await t.http().patch(`/api/operator/tenants/${id}`).set(operator).send({ executorNetworks: ['127.0.0.1'] })).status).toBe(200);

    const created = async (res: { status: number; body: { id: number } }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    };
    const aTaskId = await created(await t.http().post('/api/tasks').set(a.admin).send(cronTask('a-task', { group: 'shared-group-name' })));
    const bCalendarName = 'b-holidays';
    const bCalendarId = await created(
      await t.http().post('/api/calendars').set(b.admin).send({ name: bCalendarName, timeZone: 'Europe/Berlin', dates: ['2026-12-25'] }),
    );
    const bTaskId = await created(
      await t.http().post('/api/tasks').set(b.admin).send(cronTask('b-task', { group: 'b-group', calendarName: bCalendarName })),
    );
    const bTask2Id = await created(await t.http().post('/api/tasks').set(b.admin).send(cronTask('b-task-2', { group: 'b-group' })));
    const bDependencyId = await created(
      await t.http().post('/api/dependencies').set(b.admin).send({ parentTaskId: bTaskId, childTaskId: bTask2Id }),
    );
    const bApiKeyId = await created(await t.http().post('/api/api-keys').set(b.admin).send({ name: 'b-ci', role: 'TENANT_ADMIN' }));
    const bWebhookId = await created(await t.http().post('/api/webhooks').set(b.admin).send({ name: 'b-hook', url: 'http://127.0.0.1:9/b' }));
    const bInboundWebhookId = await created(await t.http().post('/api/inbound-webhooks').set(b.admin).send({ name: 'b-inbound', event: 'b.happened', scheme: 'STRIPE' }));
    const bEventId = await created(await t.http().post('/api/events').set(b.admin).send({ name: 'b.only', payload: { secret: 'of B' } }));
    const bRun = await insertRun(ds, b.id, bTaskId);
    await insertRunLog(ds, bRun, 'secret log line of B');
    await insertRun(ds, b.id, bTaskId, { state: 'SUCCEEDED', scheduledAt: bRun.scheduledAt - 1000 });
    await insertRun(ds, a.id, aTaskId);
    const bAlarm = await insertAlarm(ds, b.id, { taskId: bTaskId, runId: bRun.id });
    await insertAlarm(ds, a.id, { taskId: aTaskId });
    const bExecutor = await insertExecutor(ds, b.id, 'billing');
    // B's executor declares a params schema that A's tasks (cronTask: billing / closeDay) do not
    // fit, under an $id: were it applied to A, A's task writes (the batch route) would be refused.
    const bSchemas = { closeDay: { $id: 'https://schemas.example/close-day.json', description: 'secret schema of B', type: 'object', required: ['onlyB'] } };
    await ds.query('UPDATE executors SET handlers = ?, handler_schemas = ? WHERE id = ?', [JSON.stringify(['closeDay']), JSON.stringify(bSchemas), bExecutor.id]);
    await insertExecutor(ds, a.id, 'billing');
    w = {
      a,
      b,
      operator,
      aTaskId,
      bTaskId,
      bTask2Id,
      bGroup: 'b-group',
      bDependencyId,
      bCalendarId,
      bCalendarName,
      bRunId: bRun.id,
      bAlarmId: bAlarm.id,
      bApiKeyId,
      bWebhookId,
      bInboundWebhookId,
      bEventId,
      bExecutorId: bExecutor.id,
      bUserId: (await ds.getRepository(UserEntity).findOneByOrFail({ username: `${b.id}-admin` })).id,
      bRunCount: 2,
      aRunCount: 1,
    };
  });

  afterAll(() => t?.close());

  it('covers every route the console serves (the table matches the OpenAPI document)', async () => {
    const res = await t.http().get('/api/docs-json');
    expect(res.status).toBe(200);
    const served = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect([...ROUTES.map(key)].sort()).toEqual([...new Set(served)].sort());
    expect(new Set(ROUTES.map(key)).size).toBe(ROUTES.length);
  });

  it("refuses every tenant route on B's objects with A's credentials (admin session and admin API key), and changes nothing of B", async () => {
    const before = await snapshotB();
    const failures: string[] = [];
    for (const creds of [w.a.admin, w.a.adminKey]) {
      for (const route of tenantRoutes) {
        const res = await send(route, creds);
        const ok =
          route.kind === 'foreign'
            ? [404, 403, ...(route.alsoAccept ?? [])].includes(res.status)
            : route.kind === 'list'
              ? res.status === 200
              : res.status < 300 || (route.alsoAccept ?? []).includes(res.status);
        if (!ok) failures.push(`${key(route)} → ${res.status} ${JSON.stringify(res.body)}`);
        else if (res.status < 300 && route.check) route.check(w, res.body);
        // Nothing of B leaks through an error message either.
        expect(JSON.stringify(res.body)).not.toContain('secret log line of B');
        expect(JSON.stringify(res.body)).not.toContain('b-task');
        expect(JSON.stringify(res.body)).not.toContain('secret schema of B');
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshotB()).toEqual(before);
  });

  it("lists only the caller's rows (no filter)", async () => {
    const aIds = async (url: string) => {
      const res = await t.http().get(url).set(w.a.viewer);
      expect(res.status).toBe(200);
      const list = Array.isArray(res.body) ? res.body : res.body.items;
      return list as Array<Record<string, unknown>>;
    };
    expect((await aIds('/api/tasks')).map((x) => x.name)).not.toContain('b-task');
    expect((await aIds('/api/runs')).map((x) => x.taskId)).toEqual([w.aTaskId]);
    expect((await aIds('/api/alarms')).map((x) => x.taskId)).toEqual([w.aTaskId]);
    expect((await aIds('/api/dependencies')).length).toBe(0);
    expect((await aIds('/api/executors')).map((x) => x.id)).not.toContain(w.bExecutorId);
    expect((await aIds('/api/calendars')).map((x) => x.id)).not.toContain(w.bCalendarId);
  });

  it('gives a viewer (session and API key) 403 on every tenant write route, and the viewer changes nothing', async () => {
    const before = await snapshotB();
    const failures: string[] = [];
    for (const creds of [w.a.viewer, w.a.viewerKey, w.b.viewer]) {
      for (const route of tenantRoutes.filter(isWrite)) {
        const res = await send(route, creds);
        // A decision is the approval step's to allow, not the role's: here refused all the same (B's run is A's 404, and waits for no one: 409).
        if (route.decidedByStep) {
          if (![403, 404, 409].includes(res.status)) failures.push(`${key(route)} → ${res.status}`);
        } else if (res.status !== 403) failures.push(`${key(route)} → ${res.status}`);
        else expect(res.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', error: 'Forbidden' });
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshotB()).toEqual(before);
  });

  it('lets a viewer read (GET routes of its own tenant)', async () => {
    for (const url of ['/api/tasks', `/api/tasks/${w.aTaskId}`, `/api/tasks/${w.aTaskId}/stats`, '/api/runs', '/api/alarms', '/api/stats']) {
      const res = await t.http().get(url).set(w.a.viewer);
      expect(res.status, url).toBe(200);
    }
    // ...but not the tenant's API keys, which are TENANT_ADMIN only.
    expect((await t.http().get('/api/api-keys').set(w.a.viewer)).status).toBe(403);
  });

  it('gives every tenant principal 403 on every operator route', async () => {
    const failures: string[] = [];
    for (const creds of [w.a.admin, w.a.viewer, w.a.adminKey, w.a.viewerKey]) {
      for (const route of operatorRoutes) {
        const res = await send(route, creds);
        if (res.status !== 403) failures.push(`${key(route)} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('gives the operator 403 on every tenant route (operators have no tenant)', async () => {
    const failures: string[] = [];
    for (const route of tenantRoutes) {
      const res = await send(route, w.operator);
      if (res.status !== 403) failures.push(`${key(route)} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 on every route but login and health without credentials, or with bad ones', async () => {
    const failures: string[] = [];
    const bad: Credentials[] = [{}, { Authorization: 'Bearer not-a-token' }, { 'X-API-Key': 'bk_nope' }, { Authorization: 'Basic abc' }];
    for (const creds of bad) {
      for (const route of ROUTES.filter((r) => r.kind !== 'public')) {
        const res = await send(route, creds);
        if (res.status !== 401) failures.push(`${key(route)} with ${JSON.stringify(creds)} → ${res.status}`);
        else expect(res.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED', error: 'Unauthorized' });
      }
    }
    expect(failures).toEqual([]);
    expect((await t.http().get('/api/health')).status).toBe(200);
    expect((await t.http().get('/api/docs-json')).status).toBe(200);
  });

  it('refuses a revoked API key', async () => {
    const res = await t.http().post('/api/api-keys').set(w.a.admin).send({ name: 'short-lived', role: 'TENANT_VIEWER' });
    expect(res.status).toBe(201);
    const creds = { 'X-API-Key': res.body.key as string };
    expect((await t.http().get('/api/tasks').set(creds)).status).toBe(200);
    expect((await t.http().delete(`/api/api-keys/${res.body.id}`).set(w.a.admin)).status).toBe(204);
    expect((await t.http().get('/api/tasks').set(creds)).status).toBe(401);
  });
});
