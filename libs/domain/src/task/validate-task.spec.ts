import { describe, expect, it } from 'vitest';
import { MAX_PARAMS_BYTES } from '../types';
import { validateTask } from './validate-task';
import { INSTANT_REASON, MAX_INSTANT_MS, MAX_INTERVAL_MS } from '../validation/field-error';

const minimal = {
  name: 'nightly-report',
  executorApp: 'billing-svc',
  handler: 'reports.nightly',
  trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin' },
};

const full = {
  ...minimal,
  tenantId: 'acme',
  group: 'reports',
  params: { region: 'eu', limits: [1, 2, 3], nested: { ok: true, none: null } },
  startAt: Date.parse('2026-01-01T00:00:00Z'),
  endAt: Date.parse('2027-01-01T00:00:00Z'),
  maxFires: 10,
  misfirePolicy: 'SKIP',
  misfireThresholdMs: 0,
  priority: -100,
  concurrencyPolicy: 'FORBID',
  timeoutMs: 1_000,
  startDeadlineMs: 0,
  onStartLate: 'GIVE_UP',
  retry: { maxAttempts: 100, backoffBaseMs: 0, backoffMaxMs: 0, jitter: 1 },
  calendarName: 'de-holidays',
  alarms: { types: ['FAILED', 'TIMEOUT'], silenceMs: 0 },
  paused: true,
  importedFrom: `quartz:scheduler/QRTZ_/Legacy trigger 报表.${'t'.repeat(959)}`, // 1000 characters, any but control ones
};

/** The fields named by the errors for `minimal` changed by `patch`. */
const fieldsFor = (patch: Record<string, unknown>) => validateTask({ ...minimal, ...patch }).map((e) => e.field);
const errorsFor = (patch: Record<string, unknown>) => validateTask({ ...minimal, ...patch });

describe('validateTask — valid inputs', () => {
  it('accepts the minimal input (everything else defaults)', () => {
    expect(validateTask(minimal)).toEqual([]);
  });

  it('accepts a full input at the edges of every range', () => {
    expect(validateTask(full)).toEqual([]);
  });

  it('accepts explicit nulls where null is meaningful', () => {
    expect(validateTask({ ...minimal, startAt: null, endAt: null, maxFires: null, calendarName: null, importedFrom: null })).toEqual([]);
  });

  it.each([
    [{ kind: 'MANUAL' }],
    [{ kind: 'FIXED_RATE', intervalMs: 100 }],
    [{ kind: 'FIXED_DELAY', delayMs: 3_600_000 }],
    [{ kind: 'ONCE', at: Date.parse('2026-06-01T12:00:00Z') }],
    [{ kind: 'CRON', expression: '*/5 * * * *', timeZone: 'UTC' }],
    [{ kind: 'CRON', expression: '0 30 2 * * *', timeZone: 'Europe/London', repeatedTime: 'TWICE', skippedTime: 'FIRE_LATE' }],
  ])('accepts trigger %j', (trigger) => {
    expect(validateTask({ ...minimal, trigger })).toEqual([]);
  });
});

describe('validateTask — the input itself', () => {
  it.each([[null], [[]], ['task'], [42]])('refuses a non-object body %j', (body) => {
    expect(validateTask(body)).toEqual([{ field: '', reason: 'must be a JSON object' }]);
  });

  it('reports every missing required field at once', () => {
    expect(validateTask({}).map((e) => e.field)).toEqual(['name', 'executorApp', 'handler', 'trigger']);
    expect(validateTask({})[0].reason).toBe('is required');
  });

  it('says a name or handler that is there but not text must be a string, not that it is required', () => {
    expect(validateTask({ name: 5, executorApp: ['a'], handler: { h: 1 }, trigger: { kind: 'MANUAL' } })).toEqual([
      { field: 'name', reason: 'must be a string' },
      { field: 'executorApp', reason: 'must be a string' },
      { field: 'handler', reason: 'must be a string' },
    ]);
    expect(validateTask({ name: null, executorApp: '', handler: 'h', trigger: { kind: 'MANUAL' } }).map((e) => e.reason)).toEqual(['is required', 'is required']);
  });

  it('refuses fields a task does not have (a typo must not be silently ignored)', () => {
    expect(errorsFor({ cron: '* * * * *', timeout: 5 })).toEqual([
      { field: 'cron', reason: 'is not a task field' },
      { field: 'timeout', reason: 'is not a task field' },
    ]);
  });
});

describe('validateTask — names', () => {
  it.each([
    ['name', ''],
    ['name', 'has space'],
    ['name', 'ümlaut'],
    ['name', 'a'.repeat(101)],
    ['name', 7],
    ['group', ''],
    ['group', 'a/b'],
    ['executorApp', 'x:y'],
    ['calendarName', 'bad name'],
    ['handler', ''],
    ['handler', 'has space'],
    ['handler', 'tab\there'],
    ['handler', 'h'.repeat(101)],
    ['handler', null],
  ])('refuses %s = %j', (field, value) => {
    expect(fieldsFor({ [field]: value })).toEqual([field]);
  });

  it('accepts names at the length limit and with every allowed character', () => {
    expect(validateTask({ ...minimal, name: 'a'.repeat(100), group: 'A-z_0.9', handler: 'pkg.Class#method:v2/x' })).toEqual([]);
  });
});

describe('validateTask — trigger', () => {
  it('requires an object with a known kind', () => {
    expect(errorsFor({ trigger: 'CRON' })).toEqual([{ field: 'trigger', reason: 'must be an object with a kind' }]);
    expect(fieldsFor({ trigger: { kind: 'HOURLY' } })).toEqual(['trigger.kind']);
    expect(fieldsFor({ trigger: {} })).toEqual(['trigger.kind']);
  });

  it('refuses an invalid cron expression with the reason', () => {
    const errors = errorsFor({ trigger: { kind: 'CRON', expression: '61 * * * * *', timeZone: 'UTC' } });
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('trigger.expression');
    expect(errors[0].reason).toMatch(/second: 61/);
  });

  it('refuses a cron expression that never fires', () => {
    expect(fieldsFor({ trigger: { kind: 'CRON', expression: '0 0 31 4 *', timeZone: 'UTC' } })).toEqual(['trigger.expression']);
  });

  it('refuses an unknown time zone', () => {
    const errors = errorsFor({ trigger: { kind: 'CRON', expression: '0 * * * *', timeZone: 'Europe/Atlantis' } });
    expect(errors).toEqual([{ field: 'trigger.timeZone', reason: expect.stringContaining('IANA') }]);
  });

  it('says a missing time zone is required, and a one-field expression has one field', () => {
    expect(errorsFor({ trigger: { kind: 'CRON', expression: 'nope' } })).toEqual([
      { field: 'trigger.timeZone', reason: expect.stringMatching(/^is required/) },
      { field: 'trigger.expression', reason: expect.stringContaining('it has 1 field;') },
    ]);
  });

  it('names a daylight-saving policy that is not one', () => {
    expect(errorsFor({ trigger: { kind: 'CRON', expression: '0 * * * *', timeZone: 'UTC', repeatedTime: 'ONCE', skippedTime: null } })).toEqual([
      { field: 'trigger.repeatedTime', reason: 'must be one of ONCE_LATER, ONCE_EARLIER, TWICE' },
      { field: 'trigger.skippedTime', reason: 'must be one of SKIP, FIRE_LATE' },
    ]);
  });

  it('reports a bad expression and a bad zone together', () => {
    expect(fieldsFor({ trigger: { kind: 'CRON', expression: 'nope', timeZone: 'nowhere' } })).toEqual([
      'trigger.timeZone',
      'trigger.expression',
    ]);
  });

  it('requires expression and zone for CRON', () => {
    expect(fieldsFor({ trigger: { kind: 'CRON' } })).toEqual(['trigger.timeZone', 'trigger.expression']);
  });

  it.each([
    [99, 'must be at least 100'],
    [0, 'must be at least 100'],
    [-1_000, 'must be at least 100'],
    [1_000.5, 'must be an integer'],
    ['1000', 'must be an integer'],
    [undefined, 'must be an integer'],
  ])('refuses FIXED_RATE interval %j: %s', (intervalMs, reason) => {
    expect(errorsFor({ trigger: { kind: 'FIXED_RATE', intervalMs } })).toEqual([{ field: 'trigger.intervalMs', reason }]);
  });

  it('refuses a FIXED_DELAY delay below the minimum', () => {
    expect(fieldsFor({ trigger: { kind: 'FIXED_DELAY', delayMs: 50 } })).toEqual(['trigger.delayMs']);
  });

  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], ['2026-01-01'], [null], [1.5]])('refuses ONCE at = %j', (value) => {
    expect(fieldsFor({ trigger: { kind: 'ONCE', at: value } })).toEqual(['trigger.at']);
  });

  it('refuses a ONCE time outside startAt..endAt (it could never fire)', () => {
    const atTime = Date.parse('2026-06-01T00:00:00Z');
    expect(fieldsFor({ trigger: { kind: 'ONCE', at: atTime }, startAt: atTime + 1 })).toEqual(['trigger.at']);
    expect(fieldsFor({ trigger: { kind: 'ONCE', at: atTime }, endAt: atTime - 1 })).toEqual(['trigger.at']);
    expect(fieldsFor({ trigger: { kind: 'ONCE', at: atTime }, startAt: atTime, endAt: atTime + 1 })).toEqual([]);
  });

  it("refuses fields that belong to another kind's trigger", () => {
    expect(errorsFor({ trigger: { kind: 'FIXED_RATE', intervalMs: 1_000, expression: '* * * * *' } })).toEqual([
      { field: 'trigger.expression', reason: 'is not a field of a FIXED_RATE trigger' },
    ]);
  });
});

describe('validateTask — time window and counters', () => {
  it('requires integer instants for startAt and endAt', () => {
    expect(fieldsFor({ startAt: 'yesterday', endAt: 1.5 })).toEqual(['startAt', 'endAt']);
  });

  it.each([
    ['startAt', 8_640_000_000_000_001],
    ['startAt', -1],
    ['endAt', MAX_INSTANT_MS + 1],
    ['endAt', Number.MAX_SAFE_INTEGER],
  ])('refuses %s = %j: beyond year 9999 (or before 1970) breaks date math', (field, value) => {
    expect(errorsFor({ [field]: value, trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC' } })).toEqual([
      { field, reason: `${INSTANT_REASON}, or null` },
    ]);
  });

  it('accepts instants up to 9999-12-31T23:59:59.999Z', () => {
    expect(MAX_INSTANT_MS).toBe(Date.parse('9999-12-31T23:59:59.999Z'));
    expect(fieldsFor({ startAt: 0, endAt: MAX_INSTANT_MS })).toEqual([]);
    expect(fieldsFor({ trigger: { kind: 'ONCE', at: MAX_INSTANT_MS }, startAt: null, endAt: null })).toEqual([]);
    expect(errorsFor({ trigger: { kind: 'ONCE', at: MAX_INSTANT_MS + 1 }, startAt: null, endAt: null })).toEqual([{ field: 'trigger.at', reason: INSTANT_REASON }]);
  });

  it.each([
    ['FIXED_RATE', 'intervalMs'],
    ['FIXED_DELAY', 'delayMs'],
  ])('bounds a %s %s at 10 years', (kind, key) => {
    expect(fieldsFor({ trigger: { kind, [key]: MAX_INTERVAL_MS } })).toEqual([]);
    expect(errorsFor({ trigger: { kind, [key]: Number.MAX_SAFE_INTEGER } })).toEqual([{ field: `trigger.${key}`, reason: `must be at most ${MAX_INTERVAL_MS}` }]);
  });

  it('requires endAt after startAt', () => {
    expect(errorsFor({ startAt: 1_000, endAt: 1_000 })).toEqual([{ field: 'endAt', reason: 'must be after startAt' }]);
    expect(fieldsFor({ startAt: 1_000, endAt: 999 })).toEqual(['endAt']);
    expect(fieldsFor({ startAt: 1_000, endAt: 1_001 })).toEqual([]);
  });

  it.each([
    ['maxFires', 0],
    ['maxFires', 1.5],
    ['maxFires', -3],
    ['misfireThresholdMs', -1],
    ['misfireThresholdMs', 0.5],
    ['priority', 101],
    ['priority', -101],
    ['priority', 1.5],
    ['timeoutMs', 999],
    ['timeoutMs', 2_147_483_648],
    ['startDeadlineMs', -1],
    ['misfirePolicy', 'FIRE_TWICE'],
    ['concurrencyPolicy', 'QUEUE'],
    ['onStartLate', 'FAIL'],
    ['onStartLate', null],
    ['paused', 'yes'],
    ['importedFrom', ''],
    ['importedFrom', 7],
    ['importedFrom', 'x'.repeat(1001)],
    ['importedFrom', 'job\n1'],
  ])('refuses %s = %j', (field, value) => {
    expect(fieldsFor({ [field]: value })).toEqual([field]);
  });

  it('states the range in the reason', () => {
    expect(errorsFor({ priority: 101 })).toEqual([{ field: 'priority', reason: 'must be at most 100' }]);
    expect(errorsFor({ timeoutMs: 999 })).toEqual([{ field: 'timeoutMs', reason: 'must be at least 1000' }]);
    expect(errorsFor({ onStartLate: 'give up' })).toEqual([{ field: 'onStartLate', reason: 'must be one of ALARM, GIVE_UP' }]);
  });
});

describe('validateTask — retry', () => {
  it.each([
    [{ maxAttempts: 0 }, 'retry.maxAttempts'],
    [{ maxAttempts: 101 }, 'retry.maxAttempts'],
    [{ maxAttempts: 2.5 }, 'retry.maxAttempts'],
    [{ backoffBaseMs: -1 }, 'retry.backoffBaseMs'],
    [{ backoffMaxMs: -1 }, 'retry.backoffMaxMs'],
    [{ jitter: -0.1 }, 'retry.jitter'],
    [{ jitter: 1.01 }, 'retry.jitter'],
    [{ jitter: '0.2' }, 'retry.jitter'],
    [{ jitter: Number.NaN }, 'retry.jitter'],
    [{ attempts: 3 }, 'retry.attempts'],
  ])('refuses retry %j', (retry, field) => {
    expect(fieldsFor({ retry })).toEqual([field]);
  });

  it('requires backoffMaxMs ≥ backoffBaseMs, also against the default of an omitted one', () => {
    expect(errorsFor({ retry: { backoffBaseMs: 5_000, backoffMaxMs: 4_999 } })).toEqual([
      { field: 'retry.backoffMaxMs', reason: 'must be at least retry.backoffBaseMs (5000)' },
    ]);
    // Default max is 60 s.
    expect(fieldsFor({ retry: { backoffBaseMs: 120_000 } })).toEqual(['retry.backoffMaxMs']);
    expect(fieldsFor({ retry: { backoffBaseMs: 5_000, backoffMaxMs: 5_000 } })).toEqual([]);
  });

  it('accepts a partial retry policy', () => {
    expect(validateTask({ ...minimal, retry: { maxAttempts: 3 } })).toEqual([]);
  });

  it('refuses a retry that is not an object', () => {
    expect(fieldsFor({ retry: 3 })).toEqual(['retry']);
  });
});

describe('validateTask — alarms', () => {
  it('accepts known types and an empty list (no alarms)', () => {
    expect(validateTask({ ...minimal, alarms: { types: [] } })).toEqual([]);
    expect(validateTask({ ...minimal, alarms: { silenceMs: 1 } })).toEqual([]);
  });

  it('refuses unknown and repeated types, naming each by index', () => {
    expect(fieldsFor({ alarms: { types: ['FAILED', 'ON_FIRE', 'FAILED'] } })).toEqual(['alarms.types[1]', 'alarms.types[2]']);
  });

  it.each([
    [{ types: 'FAILED' }, 'alarms.types'],
    [{ silenceMs: -1 }, 'alarms.silenceMs'],
    [{ silenceMs: 1.5 }, 'alarms.silenceMs'],
    [{ mute: true }, 'alarms.mute'],
    [[], 'alarms'],
  ])('refuses alarms %j', (alarms, field) => {
    expect(fieldsFor({ alarms })).toEqual([field]);
  });
});

describe('validateTask — params', () => {
  it('accepts any JSON value, including scalars and null', () => {
    for (const params of [null, 0, 'x', true, [], {}, [{ a: [null] }]]) expect(validateTask({ ...minimal, params })).toEqual([]);
  });

  it.each([
    [{ a: undefined }, 'params.a'],
    [{ a: [1, Number.NaN] }, 'params.a[1]'],
    [{ f: () => 1 }, 'params.f'],
    [{ d: new Date(0) }, 'params.d'],
    [{ n: BigInt(1) }, 'params.n'],
    [{ m: new Map() }, 'params.m'],
    [[1, , 3], 'params[1]'], // eslint-disable-line no-sparse-arrays
  ])('refuses non-JSON params %#, naming the path', (params, field) => {
    expect(fieldsFor({ params })).toEqual([field]);
  });

  it('refuses a cycle', () => {
    const params: Record<string, unknown> = { a: {} };
    (params.a as Record<string, unknown>).back = params;
    expect(errorsFor({ params })).toEqual([{ field: 'params.a.back', reason: 'refers to itself (a cycle is not JSON)' }]);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(validateTask({ ...minimal, params: { a: shared, b: shared } })).toEqual([]);
  });

  it('caps the serialised size at MAX_PARAMS_BYTES, counting UTF-8 bytes', () => {
    // {"s":"…"} is 8 bytes of framing.
    const fits = { s: 'a'.repeat(MAX_PARAMS_BYTES - 8) };
    expect(validateTask({ ...minimal, params: fits })).toEqual([]);
    expect(errorsFor({ params: { s: 'a'.repeat(MAX_PARAMS_BYTES - 7) } })).toEqual([
      { field: 'params', reason: `is ${MAX_PARAMS_BYTES + 1} bytes as JSON; at most ${MAX_PARAMS_BYTES} are allowed` },
    ]);
    // "é" is one UTF-16 unit but two UTF-8 bytes: half as many characters reach the cap.
    const half = (MAX_PARAMS_BYTES - 8) / 2;
    expect(validateTask({ ...minimal, params: { s: 'é'.repeat(half) } })).toEqual([]);
    expect(fieldsFor({ params: { s: 'é'.repeat(half + 1) } })).toEqual(['params']);
  });

  it('refuses absurd nesting', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(fieldsFor({ params: deep })).toHaveLength(1);
  });
});

describe('validateTask — fan-out', () => {
  const errorsOf = (fanOut: unknown) => validateTask({ ...minimal, fanOut });

  it('accepts each mode, a partial object taking the defaults', () => {
    expect(errorsOf({ mode: 'SINGLE' })).toEqual([]);
    expect(errorsOf({ mode: 'BROADCAST', failWhen: 'ALL_SHARDS_FAIL' })).toEqual([]);
    expect(errorsOf({ mode: 'SHARDED', shards: 1 })).toEqual([]);
    expect(errorsOf({ mode: 'SHARDED', shards: 1000, failWhen: 'ANY_SHARD_FAILS' })).toEqual([]);
  });

  it('names the field and the reason', () => {
    expect(errorsOf('BROADCAST')).toEqual([{ field: 'fanOut', reason: 'must be an object with a mode' }]);
    expect(errorsOf({ mode: 'ALL' })).toEqual([{ field: 'fanOut.mode', reason: 'must be one of SINGLE, BROADCAST, SHARDED' }]);
    expect(errorsOf({ mode: 'SHARDED' })).toEqual([{ field: 'fanOut.shards', reason: 'is required for mode SHARDED (1–1000)' }]);
    expect(errorsOf({ mode: 'SHARDED', shards: 2.5 })).toEqual([{ field: 'fanOut.shards', reason: 'must be an integer' }]);
    expect(errorsOf({ mode: 'SHARDED', shards: 0 })).toEqual([{ field: 'fanOut.shards', reason: 'must be at least 1' }]);
    expect(errorsOf({ mode: 'SHARDED', shards: 1001 })).toEqual([{ field: 'fanOut.shards', reason: 'must be at most 1000' }]);
    expect(errorsOf({ mode: 'BROADCAST', shards: 4 })).toEqual([{ field: 'fanOut.shards', reason: 'is only for mode SHARDED (a broadcast has one shard per UP executor)' }]);
    expect(errorsOf({ mode: 'SINGLE', shards: 4 })).toEqual([{ field: 'fanOut.shards', reason: 'is only for mode SHARDED (use null)' }]);
    expect(errorsOf({ mode: 'BROADCAST', failWhen: 'SOME' })).toEqual([{ field: 'fanOut.failWhen', reason: 'must be one of ANY_SHARD_FAILS, ALL_SHARDS_FAIL' }]);
    expect(errorsOf({ mode: 'BROADCAST', spread: true })).toEqual([{ field: 'fanOut.spread', reason: 'is not a field of the fan-out settings' }]);
  });
});
