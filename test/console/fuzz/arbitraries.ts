/**
 * fast-check generators of console requests, read off the OpenAPI document: for one route, a
 * request is a role, path parameters, a query string and a body, all valid as the document
 * declares them (hinted by property name towards values the console accepts, so requests also
 * get past validation), or the same with exactly one defect placed on purpose — a non-canonical
 * id, a query value of the wrong type, a body field of the wrong type, out of range, missing,
 * unknown, or a body that is not a JSON object. The defect says what the answer must name.
 *
 * Ids, tenant ids and names of existing objects are `Ref`s into pools the fuzzer fills as it
 * goes (each object made by a 201 joins its pool); they are resolved when the request is sent.
 */
import fc from 'fast-check';
import type { Operation, Parameter, Schema } from './openapi';

/** Who sends a request. The fuzzer's own principals: their users and keys are never in a pool. */
export const ROLES = ['operator', 'admin', 'viewer', 'adminKey', 'viewerKey', 'anonymous'] as const;
export type Role = (typeof ROLES)[number];

/** What a pool holds: ids (numbers) of a kind of object, or names (strings). */
export type PoolKind =
  | 'tasks' | 'runs' | 'alarms' | 'dependencies' | 'calendars' | 'executors' | 'webhooks' | 'api-keys' | 'users'
  | 'tenants' | 'engine-groups' | 'task-groups' | 'calendar-names';

/** The n-th member (modulo its size) of a pool, resolved at send time from the pools of the request's role. */
export class Ref {
  constructor(
    readonly kind: PoolKind,
    readonly n: number,
  ) {}
  toJSON(): string {
    return `<${this.kind}#${this.n}>`;
  }
}

/**
 * The one thing a request gets wrong on purpose:
 * - `path` / `query`: the parameter `name` holds `value`, which is not what the document declares
 *   (for an integer, any spelling but the canonical decimal one); the answer must be a 400 naming `name`;
 * - `body`: the field at `field` (dotted, `[]` for array items) is of the wrong type, out of its
 *   declared range or length, missing while required, or unknown; the answer must refuse the
 *   request and, if it is a 400, name that field (or the object that holds it, or a field inside it);
 * - `raw`: the body is not a JSON object (malformed, an array, a bare value, nested too deep);
 *   the answer must be a 400 or 413 naming `body`.
 */
export type Defect =
  | { in: 'path' | 'query'; name: string; value: string }
  | { in: 'body'; field: string; kind: string }
  | { in: 'raw'; kind: string };

export interface RequestPlan {
  role: Role;
  method: Operation['method'];
  path: string;
  pathValues: Record<string, string | Ref>;
  query: Array<[string, string | Ref]>;
  /** A JSON value (with Refs in it), absent for routes without a body. */
  body?: unknown;
  /** A raw body text sent as application/json (a `raw` defect). */
  raw?: string;
  defect: Defect | null;
  /** The same request without its defect: sent when the defect goes unnamed, to tell a masked defect (the request was wrong elsewhere too) from an unnamed one. */
  baseline?: RequestPlan;
}

/** 2026-03-01T00:00:00Z, the console's clock in the fuzz run. */
export const FUZZ_NOW = Date.UTC(2026, 2, 1);

/** Spellings of a number that are not the canonical decimal of a positive id. */
export const NON_CANONICAL_IDS = ['1.0', '01', '1e0', ' 1', '1 ', '+1', '0x1', '0b1', '1_0', '-1', '0', '-0', '9007199254740993', '99999999999999999999', 'NaN', 'Infinity', '1n', '１'];

const NON_CANONICAL_INTEGERS = ['01', ' 1', '1 ', '+1', '1.0', '1.5', '1e3', '0x10', '-0', '', 'ten', '99999999999999999999', '9007199254740993', '[object Object]'];

/** Names a body may not carry unless its schema declares them (mass assignment, prototype keys). */
const UNKNOWN_FIELDS = ['tenantId', 'id', 'createdAt', 'role', 'zzFuzz', '__proto__', 'constructor'];

const ref = (kind: PoolKind) => fc.nat().map((n) => new Ref(kind, n));
const slug = (prefix: string) => fc.stringMatching(/^[a-z][a-z0-9-]{2,14}$/).map((s) => `${prefix}-${s}`);
const ms = (min: number, max: number) => fc.integer({ min, max });

/** Values the console accepts for a property, by its name; the generic schema generator fills the rest. */
function hintFor(name: string, schema: Schema): fc.Arbitrary<unknown> | null {
  switch (name) {
    case 'name':
      return schema.type === 'string' ? slug('fz') : null;
    case 'username':
      // alpha's victim logs in with password-123 (a login that succeeds), and is a taken name for a new user.
      return fc.oneof(slug('fz-user'), fc.constant('alpha-victim'));
    case 'password':
    case 'newPassword':
      return fc.constantFrom('password-123', 'another-password-456');
    case 'currentPassword':
      return fc.constantFrom('wrong-password-1', 'not-it-2');
    case 'id':
      return slug('fz-tenant');
    case 'tenantId':
      return ref('tenants');
    case 'engineGroup':
      return fc.oneof(fc.constant('default'), ref('engine-groups'));
    case 'group':
      // Group names are labels of the tenant's own: none of another tenant's (which alpha would then rightly see).
      return fc.constantFrom('default', 'reports', 'fz-group');
    case 'calendarName':
      return ref('calendar-names');
    case 'taskId':
    case 'parentTaskId':
    case 'childTaskId':
      return ref('tasks');
    case 'executorApp':
      return fc.constantFrom('billing', 'reports');
    case 'handler':
      return fc.constantFrom('closeDay', 'sleep');
    case 'expression':
      return fc.constantFrom('0 */5 * * * *', '0 0 2 * * *', '*/10 * * * * *', '0 0 12 * * MON-FRI', '0 9 * * *');
    case 'timeZone':
      return fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York');
    case 'trigger':
      return fc.oneof(
        fc.record({ kind: fc.constant('CRON'), expression: fc.constantFrom('0 */5 * * * *', '0 0 2 * * *'), timeZone: fc.constantFrom('UTC', 'Europe/Berlin') }),
        fc.record({ kind: fc.constant('FIXED_RATE'), intervalMs: ms(100, 86_400_000) }),
        fc.record({ kind: fc.constant('FIXED_DELAY'), delayMs: ms(100, 86_400_000) }),
        fc.record({ kind: fc.constant('ONCE'), at: ms(FUZZ_NOW + 1, FUZZ_NOW + 86_400_000) }),
        fc.constant({ kind: 'MANUAL' }),
      );
    case 'url':
      // Local and closed (port 9, discard): a webhook test gets its answer at once, nothing leaves the host.
      return fc.constantFrom('http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://[::1]:9/hook', 'https://127.0.0.1:9/');
    case 'executorNetworks':
      return fc.option(fc.subarray(['10.0.0.0/8', '127.0.0.1', '192.168.0.0/16', '*.svc.cluster.local', 'executor.internal']), { nil: null });
    case 'dates':
      return fc.array(fc.date({ min: new Date(FUZZ_NOW), max: new Date(FUZZ_NOW + 400 * 86_400_000), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), { maxLength: 4 });
    case 'params':
    case 'flowParams':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }).map(safeNumbers), { maxKeys: 4 });
    // startAt ≤ now < at < endAt: a task's times that fit together.
    case 'startAt':
      return ms(FUZZ_NOW - 86_400_000, FUZZ_NOW);
    case 'at':
      return ms(FUZZ_NOW + 3_600_000, FUZZ_NOW + 86_400_000);
    case 'endAt':
      return ms(FUZZ_NOW + 2 * 86_400_000, FUZZ_NOW + 30 * 86_400_000);
    case 'after':
      return ms(FUZZ_NOW - 86_400_000, FUZZ_NOW + 30 * 86_400_000);
    case 'retry':
      return fc.record(
        { maxAttempts: ms(1, 5), backoffBaseMs: ms(100, 1000), backoffMaxMs: ms(1000, 60_000), jitter: fc.double({ min: 0, max: 1, noNaN: true }) },
        { requiredKeys: [] },
      );
    case 'fanOut':
      return fc.oneof(
        fc.record({ mode: fc.constantFrom('SINGLE', 'BROADCAST') }),
        fc.record({ mode: fc.constant('SHARDED'), shards: ms(1, 8), failWhen: fc.constantFrom('ANY_SHARD_FAILS', 'ALL_SHARDS_FAIL') }),
      );
    case 'types':
      return schema.items?.enum ? fc.subarray(schema.items.enum) : null;
    // from < to ≤ now: a past range (backfill, filters).
    case 'from':
      return ms(FUZZ_NOW - 7 * 86_400_000, FUZZ_NOW - 3 * 86_400_000);
    case 'to':
      return ms(FUZZ_NOW - 3 * 86_400_000 + 1, FUZZ_NOW);
    case 'runsMs':
    case 'logsMs':
    case 'alarmsMs':
      return fc.option(ms(3_600_000, 30 * 86_400_000), { nil: null });
    case 'minRunsKept':
      return fc.option(ms(0, 200), { nil: null });
    case 'timeoutMs':
    case 'startDeadlineMs':
    case 'misfireThresholdMs':
    case 'silenceMs':
    case 'backoffBaseMs':
    case 'backoffMaxMs':
      return ms(1000, 3_600_000);
    case 'intervalMs':
    case 'delayMs':
      return ms(100, 86_400_000);
    case 'maxAttempts':
      return ms(1, 10);
    case 'jitter':
      return fc.double({ min: 0, max: 1, noNaN: true });
    case 'maxFires':
    case 'pauseAfterFailures':
      return fc.option(ms(1, 1000), { nil: null });
    case 'shards':
      return fc.option(ms(1, 8), { nil: null });
    case 'ratePerSec':
      return ms(1, 1000);
    case 'burst':
      return ms(1, 2000);
    case 'claimShare':
      return ms(1, 100);
    case 'backlogAlarmMs':
      return fc.option(ms(0, 604_800_000), { nil: null });
    case 'count':
      return ms(1, 50);
    case 'version':
      // Optimistic lock: left out (a stale one is a 409 naming it), or a guess.
      return fc.constantFrom(undefined, 1, 2);
    case 'description':
      return fc.string({ maxLength: 40 });
    case 'importedFrom':
      return fc.option(fc.stringMatching(/^[a-z]+:[a-z_]+ job [1-9]\d{0,3}$/), { nil: null });
    case 'overlapSeconds':
      return ms(0, 604_800);
    default:
      return null;
  }
}

/** JSON with its numbers brought within ±(2^53 − 1): the console refuses larger ones (JSON readers round them). */
function safeNumbers(value: unknown): unknown {
  if (typeof value === 'number') return Math.abs(value) <= Number.MAX_SAFE_INTEGER ? value : value % Number.MAX_SAFE_INTEGER;
  if (Array.isArray(value)) return value.map(safeNumbers);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safeNumbers(v)]));
  return value;
}

const jsonScalar = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));

/** A value of `schema` as the document declares it (names steer towards accepted values). */
export function validValue(schema: Schema, name = ''): fc.Arbitrary<unknown> {
  const hint = hintFor(name, schema);
  const generic = genericValue(schema, name);
  const base = hint ? fc.oneof({ arbitrary: hint, weight: 30 }, { arbitrary: generic, weight: 1 }) : generic;
  return schema.nullable ? fc.oneof({ arbitrary: base, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 }) : base;
}

function genericValue(schema: Schema, name: string): fc.Arbitrary<unknown> {
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  if (schema.oneOf?.length) return fc.oneof(...schema.oneOf.map((s) => genericValue(s, name)));
  const known = [schema.example, schema.default].filter((v) => v !== undefined && (schema.type === undefined || typeof v === schema.type));
  const withKnown = (arb: fc.Arbitrary<unknown>) => (known.length ? fc.oneof(fc.constantFrom(...known), arb) : arb);
  switch (schema.type) {
    case 'string':
      return withKnown(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 24, 24)) }));
    case 'number':
    case 'integer': {
      // Integers within the bounds: a number's may be fractions (rateLimit.perSecond from 1/86400).
      const min = Math.ceil(schema.minimum ?? 0);
      const max = Math.floor(schema.maximum ?? Math.max(min, 1_000_000));
      return withKnown(fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max)));
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = Math.min(schema.minItems ?? 0, 3);
      return fc.array(validValue(schema.items ?? {}, name), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object':
    default:
      if (schema.properties) {
        const required = schema.required ?? [];
        // An optional property may also be null: the console may take it as not given, never as a 500.
        const model = Object.fromEntries(
          Object.entries(schema.properties).map(([k, s]) => [k, required.includes(k) || s.nullable ? validValue(s, k) : fc.oneof({ arbitrary: validValue(s, k), weight: 40 }, { arbitrary: fc.constant(null), weight: 1 })]),
        );
        return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
      }
      return schema.type === 'object' ? fc.dictionary(fc.string({ maxLength: 8 }), jsonScalar, { maxKeys: 3 }) : jsonScalar;
  }
}

/** A place in a body where a defect can go: its path (`[]` for array items) and what the document says of it. */
interface Site {
  path: string[];
  schema: Schema;
  required: boolean;
  /** The object holding it declares no such property (an unknown field). */
  unknown?: boolean;
}

function sitesOf(schema: Schema, path: string[] = [], depth = 0): Site[] {
  if (depth > 4) return [];
  const out: Site[] = [];
  if (schema.properties) {
    for (const [key, child] of Object.entries(schema.properties)) {
      out.push({ path: [...path, key], schema: child, required: schema.required?.includes(key) ?? false }, ...sitesOf(child, [...path, key], depth + 1));
    }
    if (schema.additionalProperties !== true) {
      for (const key of UNKNOWN_FIELDS.filter((k) => !(k in schema.properties!))) out.push({ path: [...path, key], schema: {}, required: false, unknown: true });
    }
  }
  if (schema.type === 'array' && schema.items) out.push(...sitesOf(schema.items, [...path, '[]'], depth + 1));
  return out;
}

/** Values of another JSON type than the declared one. */
function wrongTypes(schema: Schema): unknown[] {
  const all: Record<string, unknown[]> = {
    string: [12, true, { a: 1 }, ['x']],
    number: ['12', true, { a: 1 }, [1], '1e3'],
    integer: ['12', true, { a: 1 }, [1]],
    boolean: ['true', 1, 0, { a: 1 }],
    array: ['x', 5, { a: 1 }],
    object: ['x', 5, [{ a: 1 }], true],
  };
  return schema.type ? all[schema.type] : [];
}

/** The defects a site can carry, each as the value to put there (`undefined`: delete it). */
function defectsAt(site: Site): Array<{ kind: string; value: fc.Arbitrary<unknown> }> {
  const s = site.schema;
  if (site.unknown) return [{ kind: 'unknown field', value: jsonScalar }];
  const out: Array<{ kind: string; value: fc.Arbitrary<unknown> }> = [];
  const wrong = wrongTypes(s);
  if (wrong.length) out.push({ kind: 'wrong type', value: fc.constantFrom(...wrong) });
  if (!s.nullable && s.type && site.required) out.push({ kind: 'null', value: fc.constant(null) });
  if (s.enum?.length) {
    // A lower-cased member is a near miss only where it is not a member itself (`en` is).
    const misses = ['NOT_IN_ENUM', String(s.enum[0]).toLowerCase(), ` ${String(s.enum[0])}`].filter((v) => !s.enum!.includes(v));
    out.push({ kind: 'not in enum', value: fc.constantFrom(...misses) });
  }
  if (s.minimum !== undefined) out.push({ kind: 'below minimum', value: fc.constantFrom(s.minimum - 1, s.minimum - 1_000_000, -Number.MAX_SAFE_INTEGER) });
  if (s.maximum !== undefined) out.push({ kind: 'above maximum', value: fc.constantFrom(s.maximum + 1, s.maximum * 1000 + 1, Number.MAX_SAFE_INTEGER) });
  if (s.maxLength !== undefined) out.push({ kind: 'too long', value: fc.integer({ min: 1, max: 200 }).map((n) => 'x'.repeat(s.maxLength! + n)) });
  if (s.minLength) out.push({ kind: 'too short', value: fc.constant('x'.repeat(s.minLength - 1)) });
  if (s.type === 'array' && s.maxItems !== undefined && s.maxItems <= 20) out.push({ kind: 'too many items', value: fc.array(validValue(s.items ?? {}), { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }) });
  if (s.type === 'array' && s.minItems) out.push({ kind: 'too few items', value: fc.constant([]) });
  if (site.required) out.push({ kind: 'missing', value: fc.constant(undefined) });
  return out;
}

/** `body` (a fresh copy) with `value` at `path` (`undefined`: the field deleted); the objects on the way are there (holdsPath). */
export function placeAt(body: unknown, path: string[], value: unknown): unknown {
  const root = copy(body);
  let node = root as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = (key === '[]' ? (node as unknown as unknown[])[0] : node[key]) as Record<string, unknown>;
  const last = path[path.length - 1];
  if (last === '[]') (node as unknown as unknown[])[0] = value;
  else if (value === undefined) delete node[last];
  // defineProperty: `__proto__` and `constructor` become own fields of the JSON, as a client would send them.
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return root;
}

/** A deep copy that keeps Refs (structuredClone would make them plain objects). */
function copy(value: unknown): unknown {
  if (value instanceof Ref || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: copy(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Whether every object and array on the way to `path`'s last step is in `body` (an array: its first item). */
function holdsPath(body: unknown, path: string[]): boolean {
  let node = body;
  for (const key of path.slice(0, -1)) {
    if (key === '[]') {
      if (!Array.isArray(node) || node.length === 0) return false;
      node = node[0];
    } else {
      if (!isObject(node) || !(key in node)) return false;
      node = node[key];
    }
  }
  return path.at(-1) === '[]' ? Array.isArray(node) : isObject(node);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bodies that are not a JSON object. */
const RAW_DEFECTS: Array<[string, string]> = [
  ['malformed JSON', '{"name": "x",'],
  ['an array', '[{"name": "x"}]'],
  ['a string', '"x"'],
  ['a number', '42'],
  ['null', 'null'],
  // Past the console's bound for a whole body (MAX_BODY_DEPTH, 512); a named field's 32 levels are its own rule.
  ['nested 600 levels', '{"a":'.repeat(600) + '1' + '}'.repeat(600)],
  ['trailing garbage', '{"a": 1} x'],
];

/** The pool a path parameter draws from: the path segment before it (`/api/tasks/{id}` → tasks). */
export function poolOfPathParam(path: string, param: string): PoolKind | null {
  const segments = path.split('/');
  const before = segments[segments.indexOf(`{${param}}`) - 1];
  const kinds: Record<string, PoolKind> = {
    tasks: 'tasks', runs: 'runs', alarms: 'alarms', dependencies: 'dependencies', calendars: 'calendars', executors: 'executors',
    webhooks: 'webhooks', 'api-keys': 'api-keys', users: 'users', tenants: 'tenants', 'engine-groups': 'engine-groups', 'task-groups': 'task-groups',
  };
  return kinds[before] ?? null;
}

const isIntegerParam = (p: Parameter) => p.schema.type === 'number' || p.schema.type === 'integer';

function validPathValue(op: Operation, p: Parameter): fc.Arbitrary<string | Ref> {
  const pool = poolOfPathParam(op.path, p.name);
  if (isIntegerParam(p)) {
    return fc.oneof({ arbitrary: pool ? ref(pool) : fc.constant('1'), weight: 8 }, { arbitrary: fc.constantFrom('987654321', '1', '9007199254740991'), weight: 1 });
  }
  return fc.oneof({ arbitrary: pool ? ref(pool) : fc.constant('x'), weight: 4 }, { arbitrary: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s !== '.' && s !== '..'), weight: 1 });
}

function validQueryValue(p: Parameter): fc.Arbitrary<string | Ref> {
  const s = p.schema;
  if (p.name === 'taskId') return ref('tasks');
  if (p.name === 'flowId' || p.name === 'parentRunId') return ref('runs');
  if (p.name === 'tenantId') return ref('tenants');
  if (p.name === 'app') return fc.constantFrom('billing', 'reports');
  if (p.name === 'group') return fc.oneof(fc.constant('default'), ref('task-groups'));
  if (p.name === 'from' || p.name === 'to') return (hintFor(p.name, s) as fc.Arbitrary<number>).map(String);
  if (s.type === 'number' || s.type === 'integer') return fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 60_000, max: 7 * 86_400_000 })).map(String);
  if (s.type === 'boolean') return fc.constantFrom('true', 'false', '1', '0');
  if (s.type === 'array' && s.items?.enum) return fc.subarray(s.items.enum.map(String), { minLength: 1 }).map((v) => v.join(','));
  if (s.enum?.length) return fc.constantFrom(...s.enum.map(String));
  return fc.string({ maxLength: 20 });
}

function queryDefect(p: Parameter): fc.Arbitrary<string> | null {
  const s = p.schema;
  if (s.type === 'number' || s.type === 'integer') return fc.constantFrom(...NON_CANONICAL_INTEGERS);
  if (s.type === 'boolean') return fc.constantFrom('maybe', 'yes', '2', 'TRUE', '');
  if (s.type === 'array' && s.items?.enum) return fc.constantFrom('NOT_A_VALUE', `${String(s.items.enum[0])},NOT_A_VALUE`, String(s.items.enum[0]).toLowerCase());
  return null;
}

/** Likely roles of a route get more requests; every role gets some. */
function roleArb(op: Operation): fc.Arbitrary<Role> {
  const likely: Role[] = op.path.startsWith('/api/operator/')
    ? ['operator']
    : op.path.startsWith('/api/auth/') || op.path === '/api/health' || op.path === '/api/cron/preview'
      ? [...ROLES]
      : op.method === 'GET'
        ? ['admin', 'viewer', 'adminKey', 'viewerKey']
        : ['admin', 'adminKey'];
  return fc.oneof(...ROLES.map((r) => ({ arbitrary: fc.constant(r), weight: likely.includes(r) ? 6 : 1 })));
}

/** Requests for one route: valid ones, and ones with a single defect (path, query, body field or raw body). */
export function requestsFor(op: Operation): fc.Arbitrary<RequestPlan> {
  const pathArb = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, validPathValue(op, p)]))) as fc.Arbitrary<Record<string, string | Ref>>;
  const queryArb = fc
    .record(Object.fromEntries(op.queryParams.map((p) => [p.name, validQueryValue(p)])), { requiredKeys: [] })
    .map((q) => Object.entries(q as Record<string, string | Ref>));
  const bodyArb: fc.Arbitrary<unknown> = op.body ? validValue(op.body) : fc.constant(undefined);
  const base = fc.record({ role: roleArb(op), pathValues: pathArb, query: queryArb, body: bodyArb });
  type Base = { role: Role; pathValues: Record<string, string | Ref>; query: Array<[string, string | Ref]>; body: unknown };
  const plain = (b: Base): RequestPlan => ({ role: b.role, method: op.method, path: op.path, pathValues: b.pathValues, query: b.query, ...(b.body !== undefined ? { body: b.body } : {}), defect: null });
  const plan = (b: Base, defect: Defect | null, raw?: string, baseline?: Base): RequestPlan => ({
    ...plain(b),
    ...(raw !== undefined ? { raw, body: undefined } : {}),
    defect,
    ...(baseline ? { baseline: plain(baseline) } : {}),
  });

  const variants: Array<{ arbitrary: fc.Arbitrary<RequestPlan>; weight: number }> = [{ arbitrary: base.map((b) => plan(b, null)), weight: 4 }];

  const idParams = op.pathParams.filter(isIntegerParam);
  if (idParams.length) {
    const notAnId = fc.oneof(fc.constantFrom(...NON_CANONICAL_IDS), fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/^[1-9][0-9]{0,15}$/.test(s) && s !== '.' && s !== '..'));
    variants.push({
      arbitrary: fc.tuple(base, fc.constantFrom(...idParams), notAnId).map(([b, p, value]) => plan({ ...b, pathValues: { ...b.pathValues, [p.name]: value } }, { in: 'path', name: p.name, value }, undefined, b)),
      weight: 2,
    });
  }

  const checkedQuery = op.queryParams.flatMap((p) => {
    const arb = queryDefect(p);
    return arb ? [{ p, arb }] : [];
  });
  if (op.queryParams.length) {
    const unknownName = ['zzFuzz', 'tenantId', 'id'].find((n) => !op.queryParams.some((p) => p.name === n))!;
    // A parameter that takes one value, given twice (`?limit=1&limit=2`: an array to the server).
    const repeated = op.queryParams.filter((p) => p.schema.type !== 'array').map((p) => fc.tuple(validQueryValue(p), validQueryValue(p)).map((values) => ({ name: p.name, values })));
    const defects = [
      ...checkedQuery.map(({ p, arb }) => arb.map((value) => ({ name: p.name, values: [value] as Array<string | Ref> }))),
      ...repeated,
      fc.constant({ name: unknownName, values: ['x'] as Array<string | Ref> }),
    ];
    variants.push({
      arbitrary: fc.tuple(base, fc.oneof(...defects)).map(([b, d]) =>
        plan(
          { ...b, query: [...b.query.filter(([k]) => k !== d.name), ...d.values.map((v): [string, string | Ref] => [d.name, v])] },
          { in: 'query', name: d.name, value: d.values.length > 1 ? `given ${d.values.length} times` : String(d.values[0]) },
          undefined,
          b,
        ),
      ),
      weight: 2,
    });
  }

  if (op.body) {
    const sites = sitesOf(op.body).flatMap((site) => defectsAt(site).map((d) => ({ site, ...d })));
    if (sites.length) {
      variants.push({
        arbitrary: fc.constantFrom(...sites).chain((d) =>
          fc.tuple(base, d.value).map(([b, value]) =>
            // Only where the objects holding the field were generated (valid): one made up empty would be a second defect.
            holdsPath(b.body, d.site.path)
              ? plan({ ...b, body: placeAt(b.body, d.site.path, value) }, { in: 'body', field: d.site.path.join('.').replace(/\.\[\]/g, '[]'), kind: d.kind }, undefined, b)
              : plan(b, null),
          ),
        ),
        weight: 4,
      });
    }
    variants.push({
      arbitrary: fc.tuple(base, fc.constantFrom(...RAW_DEFECTS)).map(([b, [kind, raw]]) => plan(b, { in: 'raw', kind }, raw)),
      weight: 1,
    });
  }
  return fc.oneof(...variants);
}
