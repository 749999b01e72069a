/**
 * The engine's SQL, by aggregate (one folder each: engine-nodes, engine-groups, tenants, tasks,
 * calendars, runs, keys, dependencies, alarms, executors — the layout of console-queries), one
 * operation per file, each with its statement in plain sight and a note on why it is shaped the
 * way it is (and what was measured). Run inside inTransaction(). sql.ts holds what they share.
 */
export { dialectOf, MAX_ROWS_PER_STATEMENT } from './sql';
export type { Dialect } from './sql';
export * from './engine-nodes';
export * from './engine-groups';
export * from './tenants';
export * from './tasks';
export * from './calendars';
export * from './runs';
export * from './dependencies';
export * from './alarms';
export * from './executors';
export * from './keys';
