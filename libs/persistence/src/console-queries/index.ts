/**
 * The console's queries, by aggregate (one folder each: runs, tasks, calendars, dependencies,
 * tenants, users, sessions, api-keys, engine-groups, retention, webhooks, alarms, executors), one small file per SQL operation with the query in plain sight. Every query
 * of a tenant's rows takes the tenant and filters through tenant-scope.ts.
 */
export * from './alarms';
export * from './api-keys';
export * from './calendars';
export * from './dependencies';
export * from './engine-groups';
export * from './executors';
export * from './retention';
export * from './runs';
export * from './sessions';
export * from './tasks';
export * from './tenants';
export * from './users';
export * from './webhooks';
export * from './tenant-scope';
