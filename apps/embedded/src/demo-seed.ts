import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProcessConfig } from '@baton/config';
import { TenantEntity } from '@baton/persistence';
import { DependenciesService, EngineGroupsService, TasksService, TenantsService, UsersService } from '../../console/src';

/** The demo tenant and its logins. The passwords are for a local trial; set them by env to change. */
export interface DemoLogins {
  tenant: { username: string; password: string };
  operator: { username: string; password: string };
}

export function demoLogins(env: NodeJS.ProcessEnv = process.env, values: ProcessConfig = ProcessConfig.load('embedded', env)): DemoLogins {
  return {
    tenant: { username: 'demo', password: values.string('BATON_DEMO_PASSWORD') },
    operator: { username: 'operator', password: values.string('BATON_OPERATOR_PASSWORD') },
  };
}

/** The executor app the demo tasks run on: the demo executor, built on the executor SDK. */
export const DEMO_EXECUTOR_APP = 'demo';

/**
 * Seeds the demo on an empty database, through the console's own services so the demo data
 * passes the same validation as anything a user enters: a cron task every 10 s, a fixed-rate
 * task, a task that fails (its alarms show in the console), and a manual task with a child.
 * Returns false when the database already has a tenant (a restart keeps the user's data).
 */
export async function seedDemo(app: INestApplicationContext, logins: DemoLogins): Promise<boolean> {
  if ((await app.get(DataSource).getRepository(TenantEntity).count()) > 0) return false;
  await app.get(EngineGroupsService).create({ name: 'default', description: 'Every engine of the embedded mode' });
  await app.get(TenantsService).create({ id: 'demo', name: 'Demo tenant', engineGroup: 'default' });
  const users = app.get(UsersService);
  await users.create({ ...logins.operator, role: 'OPERATOR' });
  await users.create({ ...logins.tenant, role: 'TENANT_ADMIN', tenantId: 'demo' });

  const tasks = app.get(TasksService);
  const task = (body: Record<string, unknown>) => tasks.create('demo', { executorApp: DEMO_EXECUTOR_APP, ...body } as never);
  await task({ name: 'every-10-seconds', handler: 'noop', trigger: { kind: 'CRON', expression: '*/10 * * * * *', timeZone: 'UTC' } });
  await task({ name: 'sleep-2s-every-30s', handler: 'sleep', params: { ms: 2000 }, trigger: { kind: 'FIXED_RATE', intervalMs: 30_000 } });
  await task({
    name: 'flaky-every-minute',
    handler: 'fail-n-times',
    params: { failures: 5 },
    trigger: { kind: 'CRON', expression: '0 * * * * *', timeZone: 'UTC' },
    retry: { maxAttempts: 2, backoffBaseMs: 2000 },
  });
  const report = await task({ name: 'build-report', group: 'reports', handler: 'long-running', params: { ms: 5000 }, trigger: { kind: 'MANUAL' } });
  const publish = await task({ name: 'publish-report', group: 'reports', handler: 'noop', trigger: { kind: 'MANUAL' } });
  await app.get(DependenciesService).create('demo', { parentTaskId: report.id, childTaskId: publish.id, condition: 'ON_SUCCESS' } as never);
  return true;
}
