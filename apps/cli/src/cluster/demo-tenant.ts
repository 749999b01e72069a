import type { DemoLogins } from '../../../embedded/src/demo-logins';
import { DEMO_DEPENDENCIES, DEMO_TASKS, DEMO_TENANT_ID } from '../../../embedded/src/demo-tasks';
import type { ClusterStateFile } from './cluster-state';
import { ConsoleClient } from './console-client';

/** The engine group of the cluster's engines and of the demo tenant. */
export const CLUSTER_ENGINE_GROUP = 'default';

/**
 * Makes sure the demo tenant exists, through the console's public REST API as any operator
 * would: on first start it creates the tenant with its admin (`POST /api/operator/tenants` with
 * `admin`), keeps the executor secret in the state file and seeds the demo tasks of
 * apps/embedded/src/demo-tasks.ts as the tenant's admin. Returns the executor secret. The
 * engines must have started: they create the engine group the tenant is bound to.
 */
export async function ensureDemoTenant(consoleUrl: string, logins: DemoLogins, state: ClusterStateFile): Promise<{ executorSecret: string; created: boolean }> {
  const operator = await ConsoleClient.login(consoleUrl, logins.operator);
  if (await operator.find(`/api/operator/tenants/${DEMO_TENANT_ID}`)) {
    // The API shows a secret only once: without the state file, a rotation gives a new one.
    let executorSecret = state.read()?.executorSecret;
    if (!executorSecret) {
      ({ executorSecret } = await operator.post<{ executorSecret: string }>(`/api/operator/tenants/${DEMO_TENANT_ID}/executor-secret/rotate`, { overlapSeconds: 0 }));
      state.write({ tenantId: DEMO_TENANT_ID, executorSecret });
    }
    return { executorSecret, created: false };
  }
  const created = await operator.post<{ executorSecret: string }>('/api/operator/tenants', {
    id: DEMO_TENANT_ID,
    name: 'Demo tenant',
    engineGroup: CLUSTER_ENGINE_GROUP,
    admin: { username: logins.tenant.username, password: logins.tenant.password },
  });
  state.write({ tenantId: DEMO_TENANT_ID, executorSecret: created.executorSecret });
  const admin = await ConsoleClient.login(consoleUrl, logins.tenant);
  const ids = new Map<string, number>();
  for (const task of DEMO_TASKS) ids.set(task.name as string, (await admin.post<{ id: number }>('/api/tasks', task)).id);
  for (const edge of DEMO_DEPENDENCIES) {
    await admin.post('/api/dependencies', { parentTaskId: ids.get(edge.parent), childTaskId: ids.get(edge.child), condition: edge.condition });
  }
  return { executorSecret: created.executorSecret, created: true };
}

/** Polls the tenant's runs until one scheduled at or after `since` (epoch ms) has SUCCEEDED; resolves with it. */
export async function firstSucceededRun(consoleUrl: string, logins: DemoLogins, since: number, timeoutMs: number): Promise<{ id: number; taskName: string | null }> {
  const admin = await ConsoleClient.login(consoleUrl, logins.tenant);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await admin.get<{ items: Array<{ id: number; taskName: string | null }> }>(`/api/runs?state=SUCCEEDED&from=${since}&limit=1`);
    if (page.items.length > 0) return page.items[0];
    if (Date.now() > deadline) throw new Error(`no demo run SUCCEEDED within ${timeoutMs / 1000} s (is the executor connected? see its lines above)`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
