/**
 * The console's queries, by aggregate (one folder each: runs, tasks, calendars, dependencies,
 * tenants, users, sessions, api-keys, engine-groups, retention, webhooks, alarms, executors, events,
 * inbound-webhooks, windows, health), one small file per SQL operation with the query in plain sight: apps/console reaches
 * the database only through these (apps/console/src/console-queries-only.spec.ts checks it).
 * Every query of a tenant's rows takes the tenant and filters through tenant-scope.ts; the few
 * that read across tenants on purpose say so in their name (`…AcrossTenants`).
 */
export * from './alarms';
export * from './api-keys';
export * from './calendars';
export * from './dependencies';
export * from './engine-groups';
export * from './events';
export * from './executors';
export * from './inbound-webhooks';
export * from './retention';
export * from './runs';
export * from './sessions';
export * from './tasks';
export * from './tenants';
export * from './users';
export * from './webhooks';
export * from './windows';
export * from './tenant-scope';
export * from './keyset-rows';
export * from './search-slice';
