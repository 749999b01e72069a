import { AlarmEntity } from './alarm.entity';
import { ApiKeyEntity } from './api-key.entity';
import { AuditRecordEntity } from './audit-record.entity';
import { CalendarEntity } from './calendar.entity';
import { ClusterSecretEntity } from './cluster-secret.entity';
import { EngineGroupEntity } from './engine-group.entity';
import { EngineNodeEntity } from './engine-node.entity';
import { EventEntity } from './event.entity';
import { InboundWebhookEntity } from './inbound-webhook.entity';
import { InboundWebhookSignatureEntity } from './inbound-webhook-signature.entity';
import { HistoryCursorEntity } from './history-cursor.entity';
import { LoginThrottleEntity } from './login-throttle.entity';
import { ExecutorEntity } from './executor.entity';
import { RetentionPolicyEntity } from './retention-policy.entity';
import { RunApprovalEntity } from './run-approval.entity';
import { RunAttemptEntity } from './run-attempt.entity';
import { RunAttemptReportEntity } from './run-attempt-report.entity';
import { RunLogEntity } from './run-log.entity';
import { RunRollupEntity } from './run-rollup.entity';
import { RunEntity } from './run.entity';
import { RunKeyEntity } from './run-key.entity';
import { SubmissionKeyEntity } from './submission-key.entity';
import { SessionEntity } from './session.entity';
import { TaskDependencyEntity } from './task-dependency.entity';
import { TaskEntity } from './task.entity';
import { TaskVersionEntity } from './task-version.entity';
import { TenantEntity } from './tenant.entity';
import { UserEntity } from './user.entity';
import { WebhookChannelEntity } from './webhook-channel.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

export type { AuditActorKind } from './audit-record.entity';
export type { InboundWebhookScheme } from './inbound-webhook.entity';

export {
  AlarmEntity,
  ApiKeyEntity,
  AuditRecordEntity,
  CalendarEntity,
  ClusterSecretEntity,
  EngineGroupEntity,
  EngineNodeEntity,
  EventEntity,
  ExecutorEntity,
  InboundWebhookEntity,
  InboundWebhookSignatureEntity,
  HistoryCursorEntity,
  LoginThrottleEntity,
  RetentionPolicyEntity,
  RunApprovalEntity,
  RunAttemptEntity,
  RunAttemptReportEntity,
  RunEntity,
  RunKeyEntity,
  SubmissionKeyEntity,
  RunRollupEntity,
  RunLogEntity,
  SessionEntity,
  TaskDependencyEntity,
  TaskEntity,
  TaskVersionEntity,
  TenantEntity,
  UserEntity,
  WebhookChannelEntity,
  WebhookDeliveryEntity,
};

/** Every entity, for data sources. */
export const ENTITIES = [
  TenantEntity,
  EngineGroupEntity,
  EngineNodeEntity,
  UserEntity,
  SessionEntity,
  ApiKeyEntity,
  ExecutorEntity,
  CalendarEntity,
  TaskEntity,
  TaskDependencyEntity,
  RunEntity,
  RunLogEntity,
  RunAttemptEntity,
  RunAttemptReportEntity,
  AlarmEntity,
  RunRollupEntity,
  HistoryCursorEntity,
  RetentionPolicyEntity,
  WebhookChannelEntity,
  WebhookDeliveryEntity,
  LoginThrottleEntity,
  AuditRecordEntity,
  TaskVersionEntity,
  EventEntity,
  InboundWebhookEntity,
  RunApprovalEntity,
  RunKeyEntity,
  SubmissionKeyEntity,
  InboundWebhookSignatureEntity,
  ClusterSecretEntity,
];
