/**
 * Tenants' load (issue 20 item 4), read by the console's load pages and the engine's per-tenant
 * metrics and BACKLOG_LATE alarm: index ranges and capped counts only (see each file).
 */
export { findOldestDue, findOldestDueSql } from './find-oldest-due';
export { countTenantRuns, countTenantRunsSql } from './count-tenant-runs';
export type { TenantRunCounts } from './count-tenant-runs';
export { countGroupRuns } from './count-group-runs';
export { countRecentEvents, countRecentEventsSql } from './count-recent-events';
export { sumExecutorCapacity } from './sum-executor-capacity';
export { countSentAheadByExecutor } from './sent-ahead';
export { findLoadTenants } from './find-load-tenants';
export type { LoadTenantRow } from './find-load-tenants';
export { markBacklogLate, clearBacklogLate } from './backlog-late';
export { readLoadBoard } from './read-load-board';
export type { LoadBoard } from './read-load-board';
