/**
 * The console API's answers as plain types, shared by the server's view classes (which
 * `implements` them and add the OpenAPI decorators) and the web console. Type-only imports and
 * plain constants only: the SPA's bundle takes in nothing of the server.
 */

export type { Page } from './page';
export type { BulkRunResult, BulkRunResults, Run, RunApproval, RunAttempt, RunAttempts, RunDetail, RunExecutor, RunLog, RunSearchPage, TimelineEntry } from './runs';
export type { CronPreview, LastRun, SavedTask, Task, TaskSummary, TaskTrigger } from './tasks';
export { EXECUTOR_SECRET_STATUSES, type Executor, type ExecutorConnection, type ExecutorSecretStatus, type RotatedExecutorSecret, type XxlJobToken } from './executors';
export type { Alarm, CreatedWebhook, Webhook, WebhookTest } from './alarms';
export type { Dependency } from './dependencies';
export type { Distribution, SeriesBucket, Stats, StatsSeries } from './stats';
export { API_KEY_ROLES, type ApiKey, type ApiKeyRole, type CreatedApiKey, type CreatedTenant, type EngineGroup, type EngineNode, type Tenant, type User } from './access';
export type { ExecutorCapacity, LoadBoard, LoadCount, TenantLoad } from './load';
export type { Calendar, Retention, RetentionValues, StoredRetention, TaskRetention } from './history';
export type { Preferences } from './preferences';
export type { Dashboard } from './dashboard';
export type { AuditRecord, ConfigAppliedChange, ConfigAppliedField, ConfigAppliedNames, ConfigApplyRecord, ConfigChangeAction, ConfigChangeKind } from './audit';
export type { FieldChange, TaskVersion } from './task-versions';
export type { CreatedInboundWebhook, InboundWebhook } from './inbound-webhooks';
export type { EmitBatch, EmitResult, EmittedEvent, RefusedEventRun, TenantEvent, TenantEventDetail } from './events';
