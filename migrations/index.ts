import type { MigrationInterface } from 'typeorm';
import { InitialSchema1732240000000 } from './1732240000000-initial-schema';
import { EngineClaimIndexes1795321245350 } from './1795321245350-engine-claim-indexes';
import { EngineDispatchWatchdog1795400000000 } from './1795400000000-engine-dispatch-watchdog';
import { AlarmOutboxRelay1795500000000 } from './1795500000000-alarm-outbox-relay';
import { UserDisabled1795600000000 } from './1795600000000-user-disabled';
import { ExecutorSecretRotation1795610000000 } from './1795610000000-executor-secret-rotation';
import { TenantExecutorNetworks1795700000000 } from './1795700000000-tenant-executor-networks';
import { ExecutorQueueLimit1795800000000 } from './1795800000000-executor-queue-limit';
import { HistoryAtScale1795900000000 } from './1795900000000-history-at-scale';
import { TasksAndHandlers1796000000000 } from './1796000000000-tasks-and-handlers';
import { Webhooks1796100000000 } from './1796100000000-webhooks';
import { FanOut1796200000000 } from './1796200000000-fan-out';
import { HandlerSchemas1796300000000 } from './1796300000000-handler-schemas';
import { FairClaims1796400000000 } from './1796400000000-fair-claims';
import { BackfillCancels1796460000000 } from './1796460000000-backfill-cancels';
import { TenantLoad1796470000000 } from './1796470000000-tenant-load';
import { Accounts1796500000000 } from './1796500000000-accounts';
import { LoginThrottle1796600000000 } from './1796600000000-login-throttle';
import { ConsoleOps1796610000000 } from './1796610000000-console-ops';
import { AuditLog1796620000000 } from './1796620000000-audit-log';
import { TaskVersions1796620000001 } from './1796620000001-task-versions';
import { AuditWebhooks1796620000002 } from './1796620000002-audit-webhooks';
import { SingleSignOn1796630000000 } from './1796630000000-single-sign-on';
import { RunHotPathIndexes1797100000000 } from './1797100000000-run-hot-path-indexes';
import { ExecutorProtocolVersion1797200000000 } from './1797200000000-executor-protocol-version';
import { RunInstant1797300000000 } from './1797300000000-run-instant';
import { EngineClockOffset1797300000001 } from './1797300000001-engine-clock-offset';
import { RollupEarlyStarts1797400000000 } from './1797400000000-rollup-early-starts';
import { RunTraceParent1797400000001 } from './1797400000001-run-trace-parent';
import { Events1797500000000 } from './1797500000000-events';
import { TenantXxlJobToken1797600000000 } from './1797600000000-tenant-xxl-job-token';
import { ExecutorWire1797600000001 } from './1797600000001-executor-wire';
import { RunKeys1797800000000 } from './1797800000000-run-keys';
import { InboundWebhooks1797700000000 } from './1797700000000-inbound-webhooks';
import { ApprovalSteps1797900000000 } from './1797900000000-approval-steps';
import { CronDstPolicies1798000000000 } from './1798000000000-cron-dst-policies';
import { KeyWindows1798100000000 } from './1798100000000-key-windows';
import { SubmissionKeys1798200000000 } from './1798200000000-submission-keys';
import { RunKeyRest1798300000000 } from './1798300000000-run-key-rest';
import { KeyGroups1798400000000 } from './1798400000000-key-groups';
import { CaseSensitiveKeys1798500000000 } from './1798500000000-case-sensitive-keys';
import { TaskStartDeadlineIndex1798600000000 } from './1798600000000-task-start-deadline-index';
import { TaskJsonNulls1798700000000 } from './1798700000000-task-json-nulls';
import { CaseSensitiveEventNames1798800000000 } from './1798800000000-case-sensitive-event-names';
import { RunLateFrom1798900000000 } from './1798900000000-run-late-from';
import { ExecutorStateIndex1799000000000 } from './1799000000000-executor-state-index';
import { EngineWakeKeys1799100000000 } from './1799100000000-engine-wake-keys';
import { HistoryPurgeDue1799200000000 } from './1799200000000-history-purge-due';
import { RunFinishedClock1799300000000 } from './1799300000000-run-finished-clock';
import { ClusterSecrets1799350000000 } from './1799350000000-cluster-secrets';
import { AlarmPublishedCount1799350000001 } from './1799350000001-alarm-published-count';
import { CaseSensitiveSsoSubjects1799370000000 } from './1799370000000-case-sensitive-sso-subjects';
import { InboundWebhookSignatures1799380000000 } from './1799380000000-inbound-webhook-signatures';
import { ExecutorHandBacks1799390000000 } from './1799390000000-executor-hand-backs';
import { RunWithdrawal1799400000000 } from './1799400000000-run-withdrawal';
import { TaskOnStartLate1799400000041 } from './1799400000041-task-on-start-late';
import { RunAttemptReports1799400000430 } from './1799400000430-run-attempt-reports';
import { TaskImportedFrom1799400000471 } from './1799400000471-task-imported-from';
import { RunHandBacks1799400000480 } from './1799400000480-run-hand-backs';

/**
 * Every migration, oldest first. They are the only way a Baton schema is made, on MySQL and
 * SQLite alike (openDatabase runs them); libs/persistence/src/schema-drift.spec.ts proves that
 * they build exactly what the entities describe.
 */
export const MIGRATIONS: Array<new () => MigrationInterface> = [InitialSchema1732240000000, EngineClaimIndexes1795321245350, EngineDispatchWatchdog1795400000000, AlarmOutboxRelay1795500000000, UserDisabled1795600000000, ExecutorSecretRotation1795610000000, TenantExecutorNetworks1795700000000, ExecutorQueueLimit1795800000000, HistoryAtScale1795900000000, TasksAndHandlers1796000000000, Webhooks1796100000000, FanOut1796200000000, HandlerSchemas1796300000000, FairClaims1796400000000, BackfillCancels1796460000000, TenantLoad1796470000000, Accounts1796500000000, LoginThrottle1796600000000, ConsoleOps1796610000000, AuditLog1796620000000, TaskVersions1796620000001, AuditWebhooks1796620000002, SingleSignOn1796630000000, RunHotPathIndexes1797100000000, ExecutorProtocolVersion1797200000000, RunInstant1797300000000, EngineClockOffset1797300000001, RollupEarlyStarts1797400000000, RunTraceParent1797400000001, Events1797500000000, TenantXxlJobToken1797600000000, ExecutorWire1797600000001, InboundWebhooks1797700000000, RunKeys1797800000000, ApprovalSteps1797900000000, CronDstPolicies1798000000000, KeyWindows1798100000000, SubmissionKeys1798200000000, RunKeyRest1798300000000, KeyGroups1798400000000, CaseSensitiveKeys1798500000000, TaskStartDeadlineIndex1798600000000, TaskJsonNulls1798700000000, CaseSensitiveEventNames1798800000000, RunLateFrom1798900000000, ExecutorStateIndex1799000000000, EngineWakeKeys1799100000000, HistoryPurgeDue1799200000000, RunFinishedClock1799300000000, ClusterSecrets1799350000000, AlarmPublishedCount1799350000001, CaseSensitiveSsoSubjects1799370000000, InboundWebhookSignatures1799380000000, ExecutorHandBacks1799390000000, RunWithdrawal1799400000000, TaskOnStartLate1799400000041, RunAttemptReports1799400000430, TaskImportedFrom1799400000471, RunHandBacks1799400000480];
