import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TenantEntity } from '@baton/persistence';
import { DependenciesService, EngineGroupsService, TaskCreationService, TenantsService, UsersService } from '../../console/src';
import type { DemoLogins } from './demo-logins';
import { DEMO_DEPENDENCIES, DEMO_TASKS } from './demo-tasks';

export { demoLogins, type DemoLogins } from './demo-logins';
export { DEMO_EXECUTOR_APP, DEMO_TENANT_ID } from './demo-tasks';

/**
 * Seeds the demo on an empty database, through the console's own services so the demo data
 * passes the same validation as anything a user enters: the tasks of demo-tasks.ts.
 * Returns false when the database already has a tenant (a restart keeps the user's data).
 */
export async function seedDemo(app: INestApplicationContext, logins: DemoLogins): Promise<boolean> {
  if ((await app.get(DataSource).getRepository(TenantEntity).count()) > 0) return false;
  await app.get(EngineGroupsService).create({ name: 'default', description: 'Every engine of the embedded mode' });
  await app.get(TenantsService).create({ id: 'demo', name: 'Demo tenant', engineGroup: 'default' });
  const users = app.get(UsersService);
  await users.create({ ...logins.operator, role: 'OPERATOR' });
  await users.create({ username: logins.tenant.username, password: logins.tenant.password, role: 'TENANT_ADMIN', tenantId: logins.tenant.tenant });

  const tasks = app.get(TaskCreationService);
  const ids = new Map<string, number>();
  for (const task of DEMO_TASKS) ids.set(task.name as string, (await tasks.create('demo', task as never)).id);
  for (const edge of DEMO_DEPENDENCIES) {
    await app.get(DependenciesService).create('demo', { parentTaskId: ids.get(edge.parent), childTaskId: ids.get(edge.child), condition: edge.condition } as never);
  }
  return true;
}
