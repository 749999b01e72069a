/**
 * Bad input: every refused request answers the documented 4xx naming the field and the reason,
 * as an ErrorBody (`{ statusCode, code, error, message, errors? }`), and writes nothing (row
 * counts before = after).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyEntity, InboundWebhookEntity, TaskEntity, UserEntity } from '@baton/persistence';
import { newApiKey } from '../../apps/console/src/common/secrets';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import {
  cronTask,
  insertRun,
  rowCounts,
  seedOperator,
  seedTenant,
  startConsole,
  T0,
  type ConsoleTestApp,
  type Credentials,
  type SeededTenant,
} from './console-test-kit';

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string | (() => string);
  /** A raw string's Content-Type (default application/json). */
  contentType?: string;
  /** A JSON value, or a raw string sent as application/json. */
  body?: unknown;
  raw?: string;
  as?: 'admin' | 'operator' | 'none';
  status: number;
  /** The field the answer must name (errors[].field), if any. */
  field?: string;
  /** A fragment of that field's reason. */
  reason?: RegExp;
  /** The answer's `code`, when more specific than its status's (CODES). */
  code?: string;
}

/** The code each status answers with unless a case names a more specific one. */
const CODES: Record<number, string> = { 400: 'VALIDATION_FAILED', 401: 'UNAUTHORIZED', 404: 'NOT_FOUND', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

/** The reason a name outside Baton's rule for names gets (nameProblem). */
const NAME_RULE = /^may contain only A-Z a-z 0-9 \. _ -$/;

const big = (bytes: number) => ({ blob: 'x'.repeat(bytes) });
/** `{"a":` × levels: deeper than the 32 levels a body may nest. */
const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe.each(TEST_DATABASES)('console bad input on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let a: SeededTenant;
  let operator: Credentials;
  let taskA: number;
  let taskB: number;
  let cronTaskId: number;
  let finishedRunId: number;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    operator = await seedOperator(t, db.dataSource);
    a = await seedTenant(t, db.dataSource, 'acme');
    const mk = async (name: string) => {
      const res = await t.http().post('/api/tasks').set(a.admin).send(cronTask(name));
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    taskA = await mk('a');
    taskB = await mk('b');
    cronTaskId = await mk('existing');
    const edge = await t.http().post('/api/dependencies').set(a.admin).send({ parentTaskId: taskA, childTaskId: taskB });
    expect(edge.status).toBe(201);
    finishedRunId = (await insertRun(db.dataSource, a.id, taskA, { state: 'SUCCEEDED' })).id;
  });

  afterAll(() => t?.close());

  const cases: Case[] = [
    // tasks: shape
    { name: 'unknown top-level field', method: 'POST', url: '/api/tasks', body: cronTask('t1', { colour: 'red' }), status: 400, field: 'colour', reason: /unknown field/ },
    { name: 'unknown trigger field', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC', intervalMs: 5 } }), status: 400, field: 'trigger.intervalMs', reason: /not a field/ },
    { name: 'unknown retry field', method: 'POST', url: '/api/tasks', body: cronTask('t1', { retry: { maxAttempts: 2, tries: 3 } }), status: 400, field: 'retry.tries' },
    { name: 'malformed JSON', method: 'POST', url: '/api/tasks', raw: '{"name": "t1",', status: 400, field: 'body', reason: /malformed JSON/ },
    { name: 'body not an object (array)', method: 'POST', url: '/api/tasks', raw: '[1,2]', status: 400, field: 'body', reason: /JSON object/ },
    { name: 'missing name', method: 'POST', url: '/api/tasks', body: { ...cronTask('x'), name: undefined }, status: 400, field: 'name', reason: /required/ },
    { name: 'name with spaces', method: 'POST', url: '/api/tasks', body: cronTask('has spaces'), status: 400, field: 'name' },
    { name: 'missing trigger', method: 'POST', url: '/api/tasks', body: { name: 't1', executorApp: 'billing', handler: 'h' }, status: 400, field: 'trigger', reason: /required/ },
    { name: 'unknown trigger kind', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'HOURLY' } }), status: 400, field: 'trigger.kind' },
    // tasks: semantics
    { name: 'invalid cron', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: '61 * * * *', timeZone: 'UTC' } }), status: 400, field: 'trigger.expression' },
    { name: 'cron that never fires', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: '0 0 0 30 2 *', timeZone: 'UTC' } }), status: 400, field: 'trigger.expression' },
    { name: 'unknown time zone', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'Mars/Olympus' } }), status: 400, field: 'trigger.timeZone', reason: /time zone/ },
    { name: 'unknown repeated-time policy', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC', repeatedTime: 'ONCE' } }), status: 400, field: 'trigger.repeatedTime', reason: /ONCE_LATER, ONCE_EARLIER, TWICE/ },
    { name: 'cron preview with an unknown skipped-time policy', method: 'POST', url: '/api/cron/preview', body: { expression: '0 0 * * * *', timeZone: 'UTC', skippedTime: 'LATE' }, status: 400, field: 'skippedTime', reason: /SKIP, FIRE_LATE/ },
    { name: 'zero interval', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_RATE', intervalMs: 0 } }), status: 400, field: 'trigger.intervalMs', reason: /at least/ },
    { name: 'negative interval', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_RATE', intervalMs: -5000 } }), status: 400, field: 'trigger.intervalMs' },
    { name: 'negative delay', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_DELAY', delayMs: -1 } }), status: 400, field: 'trigger.delayMs' },
    { name: 'interval as a string', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_RATE', intervalMs: '1000' } }), status: 400, field: 'trigger.intervalMs', reason: /integer/ },
    { name: 'startAt beyond the date range', method: 'POST', url: '/api/tasks', body: cronTask('t1', { startAt: 8640000000000001 }), status: 400, field: 'startAt', reason: /year 9999/ },
    { name: 'endAt beyond year 9999', method: 'POST', url: '/api/tasks', body: cronTask('t1', { endAt: 253402300800000 }), status: 400, field: 'endAt', reason: /year 9999/ },
    { name: 'FIXED_RATE interval of MAX_SAFE_INTEGER', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_RATE', intervalMs: 9007199254740991 } }), status: 400, field: 'trigger.intervalMs', reason: /at most 315360000000/ },
    { name: 'FIXED_DELAY delay over 10 years', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'FIXED_DELAY', delayMs: 315360000001 } }), status: 400, field: 'trigger.delayMs', reason: /at most/ },
    { name: 'ONCE beyond year 9999', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'ONCE', at: 8640000000000001 } }), status: 400, field: 'trigger.at', reason: /year 9999/ },
    { name: 'PATCH startAt beyond the date range', method: 'PATCH', url: () => `/api/tasks/${cronTaskId}`, body: { startAt: 8640000000000001 }, status: 400, field: 'startAt', reason: /year 9999/ },
    { name: 'cron preview of an invalid expression', method: 'POST', url: '/api/cron/preview', body: { expression: '61 * * * *', timeZone: 'UTC' }, status: 400, field: 'expression' },
    { name: 'cron preview after the date range', method: 'POST', url: '/api/cron/preview', body: { expression: '0 0 * * * *', timeZone: 'UTC', after: 8640000000000001 }, status: 400, field: 'after', reason: /year 9999/ },
    { name: 'end before start', method: 'POST', url: '/api/tasks', body: cronTask('t1', { startAt: T0 + 10_000, endAt: T0 + 5_000 }), status: 400, field: 'endAt', reason: /after startAt/ },
    { name: 'retry.maxAttempts 0', method: 'POST', url: '/api/tasks', body: cronTask('t1', { retry: { maxAttempts: 0 } }), status: 400, field: 'retry.maxAttempts' },
    { name: 'retry.jitter above 1', method: 'POST', url: '/api/tasks', body: cronTask('t1', { retry: { jitter: 2 } }), status: 400, field: 'retry.jitter' },
    { name: 'priority out of range', method: 'POST', url: '/api/tasks', body: cronTask('t1', { priority: 1000 }), status: 400, field: 'priority' },
    { name: 'unknown misfire policy', method: 'POST', url: '/api/tasks', body: cronTask('t1', { misfirePolicy: 'SOMETIMES' }), status: 400, field: 'misfirePolicy' },
    { name: 'unknown onStartLate', method: 'POST', url: '/api/tasks', body: cronTask('t1', { onStartLate: 'FAIL' }), status: 400, field: 'onStartLate', reason: /^must be one of ALARM, GIVE_UP$/ },
    { name: 'unknown alarm type', method: 'POST', url: '/api/tasks', body: cronTask('t1', { alarms: { types: ['FAILED', 'BOOM'] } }), status: 400, field: 'alarms.types[1]' },
    { name: 'one-shot in the past', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'ONCE', at: T0 - 1 } }), status: 400, field: 'trigger.at', reason: /past/ },
    { name: 'end time already passed', method: 'POST', url: '/api/tasks', body: cronTask('t1', { endAt: T0 - 1 }), status: 400, field: 'endAt', reason: /past/ },
    { name: 'unknown calendar', method: 'POST', url: '/api/tasks', body: cronTask('t1', { calendarName: 'nope' }), status: 400, field: 'calendarName' },
    { name: 'params over 64 000 bytes', method: 'POST', url: '/api/tasks', body: cronTask('t1', { params: big(64_001) }), status: 400, field: 'params', reason: /64000/ },
    { name: 'JSON nested 10 000 levels', method: 'POST', url: '/api/tasks', raw: deep(10_000), status: 400, field: 'body', reason: /JSON nested deeper than 512 levels/ },
    { name: 'JSON nested 513 levels', method: 'POST', url: '/api/tasks', raw: deep(513), status: 400, field: 'body', reason: /JSON nested deeper than 512 levels/ },
    // Within the body's bound, a field nested past 32 levels is refused by its own rule, naming it.
    { name: 'params nested 33 levels', method: 'POST', url: '/api/tasks', body: cronTask('t1', { params: JSON.parse(deep(33)) }), status: 400, field: 'params', reason: /^nested deeper than 32 levels$/ },
    { name: 'params nested 500 levels', method: 'POST', url: '/api/tasks', body: cronTask('t1', { params: JSON.parse(deep(500)) }), status: 400, field: 'params', reason: /^nested deeper than 32 levels$/ },
    { name: 'a key __proto__ in params (the validation would drop it)', method: 'POST', url: '/api/tasks', raw: JSON.stringify(cronTask('t1', { params: { a: { b: 1 } } })).replace('"a":{', '"a":{"__proto__":2,'), status: 400, field: 'params.a.__proto__', reason: /"__proto__" is not accepted as a key/ },
    { name: 'a JSON string as the body', method: 'POST', url: '/api/events', raw: '"hello"', status: 400, field: 'body', reason: /must be a JSON object \(this is JSON of type string\)/ },
    { name: 'JSON null as the body', method: 'POST', url: '/api/events', raw: 'null', status: 400, field: 'body', reason: /must be a JSON object \(this is JSON null\)/ },
    { name: 'a JSON body sent as text/plain', method: 'POST', url: '/api/events', raw: '{"name":"order.paid"}', contentType: 'text/plain', status: 415, field: 'content-type', reason: /must be application\/json \(got "text\/plain"\)/ },
    { name: 'a key prototype in an event payload', method: 'POST', url: '/api/events', body: { name: 'order.paid', payload: { prototype: 1 } }, status: 400, field: 'payload.prototype', reason: /"prototype" is not accepted/ },
    { name: 'a key constructor in an array of the body', method: 'POST', url: '/api/runs/batch', body: { runs: [{ taskId: 1 }, { taskId: 1, params: { constructor: { name: 'Object' } } }] }, status: 400, field: 'runs[1].params.constructor', reason: /"constructor" is not accepted as a key/ },
    { name: 'body over 1 MB', method: 'POST', url: '/api/tasks', body: cronTask('t1', { params: big(1_100_000) }), status: 413, field: 'body', reason: /too large/ },
    { name: 'duplicate task name', method: 'POST', url: '/api/tasks', body: cronTask('existing'), status: 409, field: 'name', reason: /already exists/ },
    { name: 'several problems at once', method: 'POST', url: '/api/tasks', body: cronTask('t1', { trigger: { kind: 'CRON', expression: 'nope', timeZone: 'Nowhere/City' }, timeoutMs: -1 }), status: 400, field: 'trigger.timeZone' },
    // tasks in a batch: all or none, every error names its item
    { name: 'batch without tasks', method: 'POST', url: '/api/tasks/batch', body: {}, status: 400, field: 'tasks' },
    { name: 'batch with an empty list', method: 'POST', url: '/api/tasks/batch', body: { tasks: [] }, status: 400, field: 'tasks', reason: /at least 1/ },
    { name: 'batch of 1,001 tasks', method: 'POST', url: '/api/tasks/batch', body: { tasks: Array.from({ length: 1001 }, (_, i) => cronTask(`b${i}`)) }, status: 400, field: 'tasks', reason: /1000/ },
    { name: 'batch not a list', method: 'POST', url: '/api/tasks/batch', body: { tasks: cronTask('b1') }, status: 400, field: 'tasks' },
    { name: 'batch with an unknown field in an item', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1'), cronTask('b2', { colour: 'red' })] }, status: 400, field: 'tasks[1].colour', reason: /unknown field/ },
    { name: 'batch with an invalid cron in the third item', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1'), cronTask('b2'), cronTask('b3', { trigger: { kind: 'CRON', expression: '61 * * * *', timeZone: 'UTC' } })] }, status: 400, field: 'tasks[2].trigger.expression' },
    { name: 'batch with a task that never fires', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1'), cronTask('b2', { trigger: { kind: 'CRON', expression: '0 0 0 30 2 *', timeZone: 'UTC' } })] }, status: 400, field: 'tasks[1].trigger.expression' },
    { name: 'batch with an unknown calendar', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1', { calendarName: 'nope' })] }, status: 400, field: 'tasks[0].calendarName' },
    { name: 'batch naming a task twice', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1'), cronTask('b2'), cronTask('b1')] }, status: 400, field: 'tasks[2].name', reason: /tasks\[0\]/ },
    { name: 'batch with a taken name', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1'), cronTask('existing')] }, status: 409, field: 'tasks[1].name', reason: /already exists/ },
    { name: 'batch over 1 MB', method: 'POST', url: '/api/tasks/batch', body: { tasks: [cronTask('b1', { params: big(1_100_000) })] }, status: 413, field: 'body' },
    // task edits
    { name: 'PATCH with an invalid cron', method: 'PATCH', url: () => `/api/tasks/${cronTaskId}`, body: { trigger: { kind: 'CRON', expression: 'every day', timeZone: 'UTC' } }, status: 400, field: 'trigger.expression' },
    { name: 'PATCH with an unknown field', method: 'PATCH', url: () => `/api/tasks/${cronTaskId}`, body: { nme: 'x' }, status: 400, field: 'nme' },
    { name: 'PATCH to a taken name', method: 'PATCH', url: () => `/api/tasks/${cronTaskId}`, body: { name: 'a' }, status: 409, field: 'name' },
    { name: 'PATCH with a stale version', method: 'PATCH', url: () => `/api/tasks/${cronTaskId}`, body: { handler: 'h2', version: 99 }, status: 409, field: 'version' },
    { name: 'PUT with a partial body', method: 'PUT', url: () => `/api/tasks/${cronTaskId}`, body: { handler: 'h2' }, status: 400, field: 'name' },
    { name: 'non-numeric id', method: 'GET', url: '/api/tasks/abc', status: 400, field: 'id' },
    { name: 'delete a task with dependencies', method: 'DELETE', url: () => `/api/tasks/${taskA}`, status: 409, field: 'dependencies', code: 'TASK_HAS_DEPENDENCIES' },
    // manual trigger
    { name: 'trigger with params over 64 000 bytes', method: 'POST', url: () => `/api/tasks/${taskA}/trigger`, body: { params: big(64_001) }, status: 400, field: 'params' },
    { name: 'trigger with an unknown field', method: 'POST', url: () => `/api/tasks/${taskA}/trigger`, body: { param: {} }, status: 400, field: 'param' },
    { name: 'trigger of a missing task', method: 'POST', url: '/api/tasks/999999/trigger', body: {}, status: 404 },
    { name: 'unknown API route', method: 'POST', url: '/api/taskz', body: {}, status: 404 },
    // dependencies
    { name: 'dependency cycle', method: 'POST', url: '/api/dependencies', body: 'CYCLE', status: 409, code: 'DEPENDENCY_CYCLE' },
    { name: 'self dependency', method: 'POST', url: '/api/dependencies', body: 'SELF', status: 409, code: 'DEPENDENCY_CYCLE' },
    { name: 'duplicate dependency', method: 'POST', url: '/api/dependencies', body: 'DUP', status: 409, field: 'childTaskId' },
    { name: 'dependency on a missing task', method: 'POST', url: '/api/dependencies', body: 'MISSING', status: 404, field: 'childTaskId' },
    { name: 'dependency with a bad condition', method: 'POST', url: '/api/dependencies', body: 'BADCOND', status: 400, field: 'condition' },
    { name: 'dependency id as a string', method: 'POST', url: '/api/dependencies', body: { parentTaskId: '1', childTaskId: 2 }, status: 400, field: 'parentTaskId' },
    // calendars
    { name: 'calendar with an impossible date', method: 'POST', url: '/api/calendars', body: { name: 'c1', timeZone: 'UTC', dates: ['2026-01-01', '2026-02-30'] }, status: 400, field: 'dates[1]' },
    { name: 'calendar with an unknown zone', method: 'POST', url: '/api/calendars', body: { name: 'c1', timeZone: 'Atlantis/Capital', dates: [] }, status: 400, field: 'timeZone' },
    { name: 'calendar with an unknown field', method: 'POST', url: '/api/calendars', body: { name: 'c1', timeZone: 'UTC', dates: [], colour: 1 }, status: 400, field: 'colour' },
    // runs, alarms, stats queries
    { name: 'runs limit above 500', method: 'GET', url: '/api/runs?limit=501', status: 400, field: 'limit' },
    { name: 'runs limit not a number', method: 'GET', url: '/api/runs?limit=ten', status: 400, field: 'limit' },
    { name: 'runs with a forged cursor', method: 'GET', url: '/api/runs?cursor=bm9wZQ', status: 400, field: 'cursor' },
    { name: 'runs with an unknown state', method: 'GET', url: '/api/runs?state=PENDING,EXPLODED', status: 400, field: 'state' },
    { name: 'runs with an unknown query parameter', method: 'GET', url: '/api/runs?limit=5&colour=red', status: 400, field: 'colour' },
    // A tenant's caller never names a tenant (its credential's is the one), on every route; operators' routes take ?tenantId=.
    ...['/api/runs', '/api/load', '/api/dashboard', '/api/users', '/api/api-keys', '/api/audit', '/api/alarms', '/api/executors', '/api/auth/me'].map(
      (path): Case => ({ name: `${path} naming a tenant`, method: 'GET', url: `${path}?tenantId=other`, status: 400, field: 'tenantId', reason: /^not taken here: a tenant's session or API key acts on its own tenant \(acme\); an operator names a tenant on \/api\/operator\/… routes$/ }),
    ),
    { name: 'cancel a finished run', method: 'POST', url: () => `/api/runs/${finishedRunId}/cancel`, status: 409, field: 'state' },
    { name: 'alarms acked not a boolean', method: 'GET', url: '/api/alarms?acked=maybe', status: 400, field: 'acked' },
    { name: 'stats window zero', method: 'GET', url: '/api/stats?windowMs=0', status: 400, field: 'windowMs' },
    // API keys
    { name: 'API key with an operator role', method: 'POST', url: '/api/api-keys', body: { name: 'k', role: 'OPERATOR' }, status: 400, field: 'role' },
    { name: 'API key without a name', method: 'POST', url: '/api/api-keys', body: { role: 'TENANT_VIEWER' }, status: 400, field: 'name' },
    // Names follow Baton's rule for names (A-Z a-z 0-9 . _ -): no NUL or other control character.
    { name: 'API key named with a NUL', method: 'POST', url: '/api/api-keys', body: { name: 'ci\u0000pipeline' }, status: 400, field: 'name', reason: NAME_RULE },
    { name: 'API key named with a newline', method: 'POST', url: '/api/api-keys', body: { name: 'ci\nforged log line' }, status: 400, field: 'name', reason: NAME_RULE },
    { name: 'API key named with a DEL', method: 'POST', url: '/api/api-keys', body: { name: 'ci\u007f' }, status: 400, field: 'name', reason: NAME_RULE },
    { name: 'API key with an empty name', method: 'POST', url: '/api/api-keys', body: { name: '' }, status: 400, field: 'name', reason: /^is required$/ },
    { name: 'API key with a name over 100 characters', method: 'POST', url: '/api/api-keys', body: { name: 'k'.repeat(101) }, status: 400, field: 'name', reason: /at most 100 characters/ },
    { name: 'API key with a number for a name', method: 'POST', url: '/api/api-keys', body: { name: 7 }, status: 400, field: 'name', reason: /^must be a string$/ },
    { name: 'operator API key named with a NUL', method: 'POST', url: '/api/operator/api-keys', body: { tenantId: 'acme', name: 'k\u0000' }, as: 'operator', status: 400, field: 'name', reason: NAME_RULE },
    // inbound webhooks
    { name: 'inbound webhook named with a NUL', method: 'POST', url: '/api/inbound-webhooks', body: { name: 'github\u0000', event: 'repo.push', scheme: 'GITHUB' }, status: 400, field: 'name', reason: NAME_RULE },
    { name: 'inbound webhook named with a tab', method: 'POST', url: '/api/inbound-webhooks', body: { name: 'git\thub', event: 'repo.push', scheme: 'GITHUB' }, status: 400, field: 'name', reason: NAME_RULE },
    { name: 'inbound webhook without a name', method: 'POST', url: '/api/inbound-webhooks', body: { event: 'repo.push', scheme: 'GITHUB' }, status: 400, field: 'name', reason: /^is required$/ },
    // auth
    { name: 'login with no body', method: 'POST', url: '/api/auth/login', as: 'none', status: 400, field: 'username', reason: /^is required$/ },
    { name: 'login without password', method: 'POST', url: '/api/auth/login', body: { username: 'acme-admin' }, as: 'none', status: 400, field: 'password' },
    { name: 'login with JSON nested 10 000 levels', method: 'POST', url: '/api/auth/login', raw: deep(10_000), as: 'none', status: 400, field: 'body', reason: /JSON nested deeper than 512 levels/ },
    { name: 'login with JSON nested 512 levels (validated, not overflowing the stack)', method: 'POST', url: '/api/auth/login', raw: deep(512), as: 'none', status: 400, field: 'a', reason: /unknown field/ },
    { name: 'login with a wrong password', method: 'POST', url: '/api/auth/login', body: { tenant: 'acme', username: 'acme-admin', password: 'wrong' }, as: 'none', status: 401 },
    { name: 'login naming a tenant that is no tenant id', method: 'POST', url: '/api/auth/login', body: { tenant: 'Not A Slug', username: 'acme-admin', password: 'x' }, as: 'none', status: 400, field: 'tenant' },
    // operator
    { name: 'tenant with an unknown engine group', method: 'POST', url: '/api/operator/tenants', body: { id: 'newco', name: 'New', engineGroup: 'nope' }, as: 'operator', status: 400, field: 'engineGroup' },
    { name: 'tenant id not a slug', method: 'POST', url: '/api/operator/tenants', body: { id: 'New Co', name: 'New', engineGroup: 'default' }, as: 'operator', status: 400, field: 'id' },
    { name: 'duplicate tenant', method: 'POST', url: '/api/operator/tenants', body: { id: 'acme', name: 'Again', engineGroup: 'default' }, as: 'operator', status: 409, field: 'id' },
    // Display names are free text, but no control character gets into a page, a log line or an audit record.
    { name: 'tenant named with a NUL', method: 'POST', url: '/api/operator/tenants', body: { id: 'newco', name: 'New\u0000Co', engineGroup: 'default' }, as: 'operator', status: 400, field: 'name', reason: /control characters/ },
    { name: 'tenant renamed with a newline', method: 'PATCH', url: '/api/operator/tenants/acme', body: { name: 'Acme\nCorp' }, as: 'operator', status: 400, field: 'name', reason: /control characters/ },
    { name: 'tenant renamed blank', method: 'PATCH', url: '/api/operator/tenants/acme', body: { name: '   ' }, as: 'operator', status: 400, field: 'name', reason: /^must not be blank$/ },
    { name: 'webhook channel named with an escape sequence', method: 'POST', url: '/api/webhooks', body: { name: 'ops\u001b[31m', url: 'https://hooks.example.com/baton' }, status: 400, field: 'name', reason: /control characters/ },
    { name: 'executor networks with a bad CIDR', method: 'PATCH', url: '/api/operator/tenants/acme', body: { executorNetworks: ['10.0.0.0/8', '10.0.0.0/33'] }, as: 'operator', status: 400, field: 'executorNetworks[1]', reason: /not a CIDR range/ },
    { name: 'executor networks allowing the metadata address', method: 'PATCH', url: '/api/operator/tenants/acme', body: { executorNetworks: ['169.254.169.254'] }, as: 'operator', status: 400, field: 'executorNetworks[0]', reason: /always refused/ },
    { name: 'executor networks not an array', method: 'POST', url: '/api/operator/tenants', body: { id: 'netco', name: 'Net', executorNetworks: '10.0.0.0/8' }, as: 'operator', status: 400, field: 'executorNetworks' },
    { name: 'user with a short password', method: 'POST', url: '/api/operator/users', body: { username: 'bob', password: 'short', role: 'TENANT_ADMIN', tenantId: 'acme' }, as: 'operator', status: 400, field: 'password' },
    { name: 'tenant user without a tenant', method: 'POST', url: '/api/operator/users', body: { username: 'bob', password: 'password-123', role: 'TENANT_ADMIN' }, as: 'operator', status: 400, field: 'tenantId' },
    { name: 'operator with a tenant', method: 'POST', url: '/api/operator/users', body: { username: 'bob', password: 'password-123', role: 'OPERATOR', tenantId: 'acme' }, as: 'operator', status: 400, field: 'tenantId' },
    { name: 'duplicate username', method: 'POST', url: '/api/operator/users', body: { username: 'acme-admin', password: 'password-123', role: 'TENANT_ADMIN', tenantId: 'acme' }, as: 'operator', status: 409, field: 'username' },
    { name: 'delete an engine group in use', method: 'DELETE', url: '/api/operator/engine-groups/default', as: 'operator', status: 409, field: 'name' },
    { name: 'API key for a missing tenant', method: 'POST', url: '/api/operator/api-keys', body: { tenantId: 'ghost', name: 'k' }, as: 'operator', status: 400, field: 'tenantId' },
  ];

  function bodyFor(c: Case): unknown {
    switch (c.body) {
      case 'CYCLE':
        return { parentTaskId: taskB, childTaskId: taskA };
      case 'SELF':
        return { parentTaskId: taskA, childTaskId: taskA };
      case 'DUP':
        return { parentTaskId: taskA, childTaskId: taskB };
      case 'MISSING':
        return { parentTaskId: taskA, childTaskId: 987654 };
      case 'BADCOND':
        return { parentTaskId: taskA, childTaskId: cronTaskId, condition: 'ON_TUESDAYS' };
      default:
        return c.body;
    }
  }

  it.each(cases)('$name → $status', async (c) => {
    const before = await rowCounts(db.dataSource);
    const taskBefore = await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id: cronTaskId });
    const creds = c.as === 'none' ? {} : c.as === 'operator' ? operator : a.admin;
    const url = typeof c.url === 'function' ? c.url() : c.url;
    const http = t.http();
    const req = (
      c.method === 'GET' ? http.get(url)
      : c.method === 'POST' ? http.post(url)
      : c.method === 'PUT' ? http.put(url)
      : c.method === 'PATCH' ? http.patch(url)
      : http.delete(url)
    ).set(creds);
    const res =
      c.raw !== undefined
        ? await req.set('Content-Type', c.contentType ?? 'application/json').send(c.raw)
        : c.body !== undefined
          ? await req.send(bodyFor(c) as object)
          : await req;

    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(c.status);
    expect(res.body).toMatchObject({ statusCode: c.status, code: c.code ?? CODES[c.status], error: expect.any(String), message: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.[jt]s:\d+/); // no stack trace
    if (c.field !== undefined) {
      const errors = res.body.errors as Array<{ field: string; reason: string }>;
      expect(errors, JSON.stringify(res.body)).toEqual(expect.arrayContaining([expect.objectContaining({ field: c.field })]));
      const reason = errors.find((e) => e.field === c.field)!.reason;
      expect(reason.length).toBeGreaterThan(0);
      if (c.reason) expect(reason).toMatch(c.reason);
    }
    // One message across the API: a 400's names its fields as its errors do.
    if (c.status === 400 && res.body.errors) expect(res.body.message).toBe((res.body.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}: ${e.reason}`).join('; '));
    // Nothing was written.
    expect(await rowCounts(db.dataSource)).toEqual(before);
    expect(await db.dataSource.getRepository(TaskEntity).findOneByOrFail({ id: cronTaskId })).toEqual(taskBefore);
  });

  it('tells an API key sent as a session token (Authorization: Bearer) that it goes in X-API-Key, and still answers a session unknown as such', async () => {
    const asBearer = await t.http().get('/api/tasks').set({ Authorization: `Bearer ${a.adminKey['X-API-Key']}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'This is an API key: send it in the X-API-Key header ("X-API-Key: bk_…"); Authorization: Bearer takes a session token' });
    const unknown = await t.http().get('/api/tasks').set({ Authorization: 'Bearer no-such-session' });
    expect(unknown.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Session expired or unknown; log in again' });
  });

  it('answers names stored before the rule for names as they are: an API key and an inbound webhook named with a space and a control character are listed, and work', async () => {
    const stored = 'CI pipeline \u0007 (old)';
    const { key, prefix, hash } = newApiKey();
    const owner = (await db.dataSource.getRepository(UserEntity).findOneByOrFail({ username: 'acme-admin' })).id;
    await db.dataSource.getRepository(ApiKeyEntity).insert({ tenantId: 'acme', name: stored, role: 'TENANT_ADMIN', ownerUserId: owner, prefix, keyHash: hash, createdAt: T0, revokedAt: null });
    const secret = 'stored-before-the-rule-0123';
    const publicId = `ih_${'S'.repeat(43)}`;
    await db.dataSource.getRepository(InboundWebhookEntity).insert({ publicId, tenantId: 'acme', name: stored, eventName: 'old.hook', scheme: 'GITHUB', secret, createdAt: T0 });

    const keys = await t.http().get('/api/api-keys').set({ 'X-API-Key': key });
    expect(keys.status, JSON.stringify(keys.body)).toBe(200);
    expect(keys.body.map((k: { name: string }) => k.name)).toContain(stored);
    const hooks = await t.http().get('/api/inbound-webhooks').set(a.admin);
    expect(hooks.body).toEqual(expect.arrayContaining([expect.objectContaining({ name: stored, path: `/api/hooks/${publicId}` })]));
    const body = JSON.stringify({ ref: 'main' });
    const delivered = await t.http().post(`/api/hooks/${publicId}`).set('Content-Type', 'application/json').set({ 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'X-GitHub-Delivery': 'd-old-hook' }).send(body);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(201);
  });

  it('names the cycle: 409 DEPENDENCY_CYCLE with the task names, "a → b → a" and the field closing it', async () => {
    const res = await t.http().post('/api/dependencies').set(a.admin).send({ parentTaskId: taskB, childTaskId: taskA });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'DEPENDENCY_CYCLE', cycle: ['a', 'b', 'a'] });
    expect(res.body.message).toContain('a → b → a');
    // The field of the edge sent that closes it, as every refusal names its field.
    expect(res.body.errors).toEqual([{ field: 'childTaskId', reason: 'closes the cycle a → b → a' }]);
    const self = await t.http().post('/api/dependencies').set(a.admin).send({ parentTaskId: taskA, childTaskId: taskA });
    expect(self.body).toMatchObject({ code: 'DEPENDENCY_CYCLE', cycle: ['a', 'a'], errors: [{ field: 'childTaskId', reason: 'closes the cycle a → a' }] });
    const list = await t.http().get('/api/dependencies').set(a.admin);
    expect(list.body).toHaveLength(1);
  });

  it('gives a bad query parameter one reason, the rule it breaks, on every list', async () => {
    const errorsOf = async (url: string) => {
      const res = await t.http().get(url).set(a.admin);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.errors;
    };
    const instant = 'must be an integer instant (epoch ms)';
    expect(await errorsOf('/api/events?from=abc')).toEqual([{ field: 'from', reason: instant }]);
    expect(await errorsOf('/api/events?to=1.5&limit=0')).toEqual([
      { field: 'to', reason: instant },
      { field: 'limit', reason: 'must be at least 1' },
    ]);
    expect(await errorsOf('/api/runs?from=abc&limit=x')).toEqual(
      expect.arrayContaining([
        { field: 'limit', reason: 'must be an integer' },
        { field: 'from', reason: instant },
      ]),
    );
    expect(await errorsOf('/api/runs/search?q=boom&from=abc&to=-1')).toEqual([
      { field: 'from', reason: instant },
      { field: 'to', reason: 'must be at least 0' },
    ]);
    expect(await errorsOf('/api/audit?from=abc')).toEqual([{ field: 'from', reason: instant }]);
    expect(await errorsOf('/api/alarms?to=soon')).toEqual([{ field: 'to', reason: instant }]);
  });

  it('reports every problem of a task at once', async () => {
    const res = await t
      .http()
      .post('/api/tasks')
      .set(a.admin)
      .send(cronTask('t1', { trigger: { kind: 'CRON', expression: 'nope', timeZone: 'Nowhere/City' }, timeoutMs: -1, retry: { maxAttempts: 0 } }));
    expect(res.status).toBe(400);
    const fields = (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();
    expect(fields).toEqual(['retry.maxAttempts', 'timeoutMs', 'trigger.expression', 'trigger.timeZone']);
  });
});
