import { join } from 'node:path';
import type { Cluster } from '../../test/cluster/support/cluster';
import { startConsoleProcess, type EngineProcess, type ExecutorNode, type OwnedProcess } from '../../test/cluster/support/processes';
import { seedTenant } from '../../test/cluster/support/seed';
import { insertApiKey } from '../../test/console/console-test-kit';
import { AT_DEFAULTS } from '../scenarios/run-now';

/** An answer of the console's API (a task's or run's id, a batch's results). */
export interface ApiAnswer {
  id?: number;
  results?: Array<{ status: number }>;
}

/** The isolation benchmarks' cluster: tenant A (the cluster's own) and tenant B, each with its demo executor. */
export interface TwoTenants {
  engines: EngineProcess[];
  aExecutor: ExecutorNode;
  bExecutor: ExecutorNode;
  console: OwnedProcess & { url: string };
  /** POST to the console's API as tenant `as` (an API key, TENANT_ADMIN); throws on an answer ≥ 300. */
  post(as: 'a' | 'b', path: string, body: unknown): Promise<ApiAnswer>;
  /** Each tenant's API key (TENANT_ADMIN), for a client of its own. */
  apiKeys: Record<'a' | 'b', string>;
}

/**
 * Cluster mode as a user runs it, for a hostile tenant A beside a tenant B (flooded-key,
 * failing-storm): B seeded as `globex` in A's engine group, 2 engines at their defaults, one demo
 * executor a tenant (the SDK's defaults), one console process, everything through the REST API.
 * `engineEnv(i)`: engine i's (1, 2) settings beyond the defaults (a bench's preloads).
 */
export async function openTwoTenants(c: Cluster, engineEnv: (i: number) => Record<string, string> = () => ({})): Promise<TwoTenants> {
  const b = await seedTenant(c.ds, { id: 'globex', engineGroup: c.tenant.engineGroup });
  const engines = await Promise.all([1, 2].map(async (i) => (await c.startEngines(1, { ...AT_DEFAULTS, ...engineEnv(i) }))[0]));
  const [aExecutor] = await c.startExecutors(1);
  const bExecutor = await c.startExecutorOf(b, 'executor-b');
  const consoleProc = await startConsoleProcess({ name: 'console', logFile: join(c.dir, 'console.log'), env: { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1' } });
  const keys = { a: await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN'), b: await insertApiKey(c.ds, b.id, 'TENANT_ADMIN') };
  return {
    engines,
    aExecutor,
    bExecutor,
    console: consoleProc,
    apiKeys: { a: keys.a['X-API-Key'], b: keys.b['X-API-Key'] },
    async post(as, path, body) {
      const res = await fetch(`${consoleProc.url}/api${path}`, { method: 'POST', headers: { ...keys[as], 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as ApiAnswer;
    },
  };
}
