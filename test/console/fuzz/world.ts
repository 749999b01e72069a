/**
 * What the fuzzer acts on: tenant `alpha` (whose principals fuzz the tenant routes), tenant
 * `bravo` (a bystander whose objects alpha tries to reach and must never see), tenant `charlie`
 * (what the operator's destructive routes act on), the operator, and pools of the ids and names
 * the generated requests draw from.
 *
 * The fuzzer's own principals (alpha's admin and viewer, their keys, the operator) are in no
 * pool, so no generated request disables, deletes, revokes or re-passwords them; alpha's
 * `victim` users and key are there instead. Operator requests draw from alpha's and charlie's
 * objects only, so bravo stays as seeded (checked at the end).
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  cronTask,
  insertAlarm,
  insertApiKey,
  insertExecutor,
  insertRun,
  insertRunLog,
  insertUser,
  seedOperator,
  seedTenant,
  type ConsoleTestApp,
  type Credentials,
} from '../console-test-kit';
import { Ref, type PoolKind, type Role } from './arbitraries';

export const TENANT = 'alpha';
export const BYSTANDER = 'bravo';
const SACRIFICE = 'charlie';

/** Pools of one scope: tenant principals (alpha's objects and bravo's) or the operator (alpha's and charlie's). */
type Pools = Map<PoolKind, Array<number | string>>;

export interface World {
  creds: Record<Role, Credentials>;
  tenantPools: Pools;
  operatorPools: Pools;
  /** Bravo's row ids per kind, and the tables they live in: none may reach alpha. */
  bystanderIds: Map<PoolKind, Set<number>>;
}

const add = (pools: Pools, kind: PoolKind, value: number | string | undefined) => {
  if (value === undefined) return;
  const list = pools.get(kind) ?? [];
  if (!list.includes(value)) list.push(value);
  pools.set(kind, list);
};

/** The tables of each id kind, for reading bravo's ids. */
const TABLES: Partial<Record<PoolKind, string>> = {
  tasks: 'tasks', runs: 'runs', alarms: 'alarms', dependencies: 'task_dependencies', calendars: 'calendars',
  executors: 'executors', webhooks: 'webhook_channels', 'api-keys': 'api_keys', users: 'users',
};

async function created(res: { status: number; body: Record<string, unknown> }, what: string, status = 201): Promise<Record<string, unknown>> {
  if (res.status !== status) throw new Error(`seeding ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A tenant's objects, made through the API as its admin (and rows only an engine writes, inserted). */
async function furnish(t: ConsoleTestApp, ds: DataSource, tenant: string, admin: Credentials, pools: Pools[]): Promise<void> {
  const put = (kind: PoolKind, value: number | string | undefined) => pools.forEach((p) => add(p, kind, value));
  const http = () => t.http();
  const calendar = await created(await http().post('/api/calendars').set(admin).send({ name: `${tenant}-holidays`, timeZone: 'UTC', dates: ['2026-12-25'] }), 'calendar');
  put('calendars', calendar.id as number);
  put('calendar-names', calendar.name as string);
  const taskIds: number[] = [];
  for (const [i, extra] of [{ group: `${tenant}-group`, calendarName: `${tenant}-holidays` }, { group: `${tenant}-group` }, { trigger: { kind: 'MANUAL' } }].entries()) {
    const task = await created(await http().post('/api/tasks').set(admin).send(cronTask(`${tenant}-task-${i}`, extra)), 'task');
    taskIds.push(task.id as number);
    put('tasks', task.id as number);
  }
  put('task-groups', `${tenant}-group`);
  const dep = await created(await http().post('/api/dependencies').set(admin).send({ parentTaskId: taskIds[0], childTaskId: taskIds[1] }), 'dependency');
  put('dependencies', dep.id as number);
  const hook = await created(await http().post('/api/webhooks').set(admin).send({ name: `${tenant}-hook`, url: 'http://127.0.0.1:9/hook' }), 'webhook');
  put('webhooks', hook.id as number);
  const key = await created(await http().post('/api/api-keys').set(admin).send({ name: `${tenant}-victim-key`, role: 'TENANT_VIEWER' }), 'api key');
  put('api-keys', key.id as number);
  const run = await insertRun(ds, tenant, taskIds[0]);
  await insertRunLog(ds, run, `${tenant} log line`);
  const done = await insertRun(ds, tenant, taskIds[0], { state: 'SUCCEEDED', scheduledAt: run.scheduledAt - 60_000 });
  put('runs', run.id);
  put('runs', done.id);
  put('alarms', (await insertAlarm(ds, tenant, { taskId: taskIds[0], runId: run.id, message: `${tenant} alarm` })).id);
  put('executors', (await insertExecutor(ds, tenant, 'billing')).id);
  await insertUser(ds, `${tenant}-victim`, 'TENANT_VIEWER', tenant);
  const [victim] = await ds.query(`SELECT id FROM users WHERE username = ?`, [`${tenant}-victim`]);
  put('users', Number(victim.id));
}

export async function seedWorld(t: ConsoleTestApp, ds: DataSource): Promise<World> {
  const tenantPools: Pools = new Map();
  const operatorPools: Pools = new Map();
  const operator = await seedOperator(t, ds);
  const alpha = await seedTenant(t, ds, TENANT);
  const bravo = await seedTenant(t, ds, BYSTANDER);
  const charlie = await seedTenant(t, ds, SACRIFICE);
  // Their webhooks point at a closed loopback port: loopback is refused for webhooks unless the operator allows it.
  for (const tenant of [TENANT, BYSTANDER, SACRIFICE]) await created(await t.http().patch(`/api/operator/tenants/${tenant}`).set(operator).send({ executorNetworks: ['127.0.0.0/8'] }), 'tenant networks', 200);
  await furnish(t, ds, TENANT, alpha.admin, [tenantPools, operatorPools]);
  await furnish(t, ds, BYSTANDER, bravo.admin, [tenantPools]);
  await furnish(t, ds, SACRIFICE, charlie.admin, [operatorPools]);
  await insertApiKey(ds, SACRIFICE, 'TENANT_ADMIN');
  for (const tenant of [TENANT, SACRIFICE]) add(operatorPools, 'tenants', tenant);
  for (const tenant of [TENANT, BYSTANDER, 'nobody']) add(tenantPools, 'tenants', tenant);
  add(operatorPools, 'engine-groups', 'default');
  add(tenantPools, 'engine-groups', 'default');
  // charlie's users and keys, for the operator's user and key routes.
  const charlieRows = await ds.query(`SELECT id FROM users WHERE tenant_id = ?`, [SACRIFICE]);
  for (const row of charlieRows) add(operatorPools, 'users', Number(row.id));
  for (const row of await ds.query(`SELECT id FROM api_keys WHERE tenant_id = ?`, [SACRIFICE])) add(operatorPools, 'api-keys', Number(row.id));

  const bystanderIds = new Map<PoolKind, Set<number>>();
  for (const [kind, table] of Object.entries(TABLES) as Array<[PoolKind, string]>) {
    const rows = await ds.query(`SELECT id FROM ${ds.driver.escape(table)} WHERE tenant_id = ?`, [BYSTANDER]);
    bystanderIds.set(kind, new Set(rows.map((r: { id: number | string }) => Number(r.id))));
  }
  return {
    creds: { operator, admin: alpha.admin, viewer: alpha.viewer, adminKey: alpha.adminKey, viewerKey: alpha.viewerKey, anonymous: {} },
    tenantPools,
    operatorPools,
    bystanderIds,
  };
}

/** A Ref's value in the pools of the role (an id that exists nowhere when the pool is empty). */
export function resolveRefs(world: World, role: Role, value: unknown): unknown {
  if (value instanceof Ref) {
    const pool = (role === 'operator' ? world.operatorPools : world.tenantPools).get(value.kind) ?? [];
    return pool.length ? pool[value.n % pool.length] : 987654321;
  }
  if (Array.isArray(value)) return value.map((v) => resolveRefs(world, role, v));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: resolveRefs(world, role, v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** What a 2xx POST made joins the pools of the scope that made it, so later requests act on it. */
export function harvest(world: World, role: Role, path: string, body: unknown): void {
  const pools = role === 'operator' ? world.operatorPools : world.tenantPools;
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object') return;
  const kindByPath: Record<string, PoolKind> = {
    '/api/tasks': 'tasks', '/api/dependencies': 'dependencies', '/api/calendars': 'calendars', '/api/webhooks': 'webhooks',
    '/api/api-keys': 'api-keys', '/api/users': 'users', '/api/operator/users': 'users', '/api/operator/api-keys': 'api-keys',
  };
  if (path === '/api/tasks/batch') {
    for (const task of (b.items as Array<Record<string, unknown>> | undefined) ?? []) add(pools, 'tasks', task.id as number);
  } else if (path === '/api/operator/tenants') {
    add(pools, 'tenants', (b.tenant as Record<string, unknown> | undefined)?.id as string | undefined ?? (b.id as string | undefined));
  } else if (path === '/api/operator/engine-groups') {
    add(pools, 'engine-groups', b.name as string | undefined);
  } else if (kindByPath[path] && typeof b.id === 'number') {
    add(pools, kindByPath[path], b.id);
  }
  if (path === '/api/calendars' && typeof b.name === 'string') add(pools, 'calendar-names', b.name);
  if (path === '/api/tasks' && typeof b.group === 'string') add(pools, 'task-groups', b.group);
}

/**
 * A digest of every row of every table, per table: equal digests before and after a refused
 * request prove it changed no row (an insert, an update or a delete all change the digest).
 * MariaDB computes them itself in one statement (CHECKSUM TABLE reads every row); on SQLite,
 * in process, the rows are hashed here. Not `login_throttle`: a refused login or password change
 * is counted there on purpose (the throttle is that write).
 */
export async function rowDigests(ds: DataSource): Promise<Map<string, string>> {
  const tables = [...new Set(ds.entityMetadatas.map((m) => m.tableName))].filter((t) => t !== 'login_throttle');
  if (ds.options.type === 'mysql' || ds.options.type === 'mariadb') {
    const rows: Array<{ Table: string; Checksum: string | number | null }> = await ds.query(`CHECKSUM TABLE ${tables.map((t) => ds.driver.escape(t)).join(', ')}`);
    return new Map(rows.map((r) => [r.Table, String(r.Checksum)]));
  }
  const out = new Map<string, string>();
  for (const table of tables) {
    const rows: unknown[] = await ds.query(`SELECT * FROM ${ds.driver.escape(table)}`);
    out.set(table, createHash('sha1').update(rows.map((r) => JSON.stringify(r)).sort().join('\n')).digest('hex'));
  }
  return out;
}

/**
 * A failed login is audited on purpose (`auth.login-failed`, and its AUDIT webhook deliveries):
 * the one refused request whose write is the point, as the throttle's is.
 */
export const FAILED_LOGIN_ROUTES: ReadonlySet<string> = new Set(['/api/auth/login', '/api/auth/ldap/login']);
export const FAILED_LOGIN_TABLES = /(^|\.)(audit_log|webhook_deliveries)$/;

export const changedTables = (before: Map<string, string>, after: Map<string, string>): string[] =>
  [...after.keys()].filter((table) => before.get(table) !== after.get(table));

/** Fields naming an object of a kind, as the console's views spell them. */
const ID_FIELDS: Record<string, PoolKind> = {
  taskId: 'tasks', parentTaskId: 'tasks', childTaskId: 'tasks', runId: 'runs', parentRunId: 'runs', flowId: 'runs', rootRunId: 'runs',
  alarmId: 'alarms', executorId: 'executors', calendarId: 'calendars', userId: 'users', dependencyId: 'dependencies', webhookId: 'webhooks', keyId: 'api-keys',
};

/**
 * Where an answer to one of alpha's principals shows bravo: a `tenantId` other than alpha's, a
 * field naming one of bravo's objects by id (`taskId`, …, and `id` of the route's own kind at the
 * top of the answer or its items), or a text of bravo's (its ids and names all hold `bravo`)
 * the request did not itself contain.
 */
export function bystanderTraces(world: World, routeKind: PoolKind | null, requestText: string, body: unknown): string[] {
  const out: string[] = [];
  const isBystanders = (kind: PoolKind, v: unknown) => typeof v === 'number' && (world.bystanderIds.get(kind)?.has(v) ?? false);
  const walk = (node: unknown, at: string, top: boolean) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}[${i}]`, top));
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'tenantId' && typeof v === 'string' && v !== TENANT) out.push(`${at}.tenantId = ${v}`);
      if (ID_FIELDS[k] && isBystanders(ID_FIELDS[k], v)) out.push(`${at}.${k} = ${String(v)} (${BYSTANDER}'s)`);
      if (k === 'id' && top && routeKind && isBystanders(routeKind, v)) out.push(`${at}.id = ${String(v)} (${BYSTANDER}'s ${routeKind})`);
      walk(v, `${at}.${k}`, top && k === 'items');
    }
  };
  walk(body, '$', true);
  if (!requestText.includes(BYSTANDER) && JSON.stringify(body ?? null).includes(BYSTANDER)) out.push(`the text "${BYSTANDER}"`);
  return out;
}
