import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AlarmType, ConcurrencyPolicy, FanOutFailWhen, FanOutMode, MisfirePolicy, RepeatedTimePolicy, SkippedTimePolicy, StartLatePolicy, TriggerKind } from '@baton/domain';
import { StoredJson, json, millis, nullableJson } from './columns';

/**
 * A task definition. The trigger is spread over typed columns (not one JSON blob) so the
 * planner's claim can filter and the console can sort on them.
 */
@Entity({ name: 'tasks' })
@Index('uq_tasks_tenant_name', ['tenantId', 'name'], { unique: true })
// The planner's claim: "tasks of engine group G not paused whose next fire is due".
@Index('ix_tasks_plan', ['engineGroup', 'paused', 'nextFireAt'])
// An event's subscribers: "the tenant's tasks started by events named N" (never a scan of all tasks).
@Index('ix_tasks_event', ['tenantId', 'eventName'])
// The least start deadline of all tasks, one index dive: it bounds the watchdog's START_LATE scan (find-late-runs.ts).
@Index('ix_tasks_start_deadline', ['startDeadlineMs'])
export class TaskEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** Copied from the tenant so claims need no join; rewritten when the tenant moves group. */
  @Column({ name: 'engine_group', type: 'varchar', length: 64 })
  engineGroup!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** Task group label for pause/resume as a whole. */
  @Column({ name: 'group_name', type: 'varchar', length: 100, default: 'default' })
  groupName!: string;

  @Column({ name: 'executor_app', type: 'varchar', length: 100 })
  executorApp!: string;

  @Column({ type: 'varchar', length: 100 })
  handler!: string;

  @Column({ type: 'text', transformer: json })
  params!: StoredJson;

  @Column({ name: 'trigger_kind', type: 'varchar', length: 16 })
  triggerKind!: TriggerKind;

  /** CRON only. */
  @Column({ name: 'cron_expression', type: 'varchar', length: 200, nullable: true })
  cronExpression!: string | null;

  /** CRON only: IANA zone. */
  @Column({ name: 'time_zone', type: 'varchar', length: 64, nullable: true })
  timeZone!: string | null;

  /** CRON only: what a local time the clocks repeat does (RepeatedTimePolicy); null: the default, ONCE_LATER. */
  @Column({ name: 'cron_repeated_time', type: 'varchar', length: 12, nullable: true })
  cronRepeatedTime!: RepeatedTimePolicy | null;

  /** CRON only: what a local time the clocks skip does (SkippedTimePolicy); null: the default, SKIP. */
  @Column({ name: 'cron_skipped_time', type: 'varchar', length: 9, nullable: true })
  cronSkippedTime!: SkippedTimePolicy | null;

  /** FIXED_RATE interval or FIXED_DELAY delay. */
  @Column({ name: 'interval_ms', type: 'bigint', nullable: true, transformer: millis })
  intervalMs!: number | null;

  /** ONCE only. */
  @Column({ name: 'once_at', type: 'bigint', nullable: true, transformer: millis })
  onceAt!: number | null;

  /** EVENT only: the name of the events that start the task. */
  @Column({ name: 'event_name', type: 'varchar', length: 100, nullable: true })
  eventName!: string | null;

  /** EVENT only: JSON path → value or { exists } the payload must hold (domain EventFilter). */
  @Column({ name: 'event_filter', type: 'text', nullable: true, transformer: nullableJson })
  eventFilter!: StoredJson;

  /** EVENT only: param name → JSON path of the payload (domain EventProjection); null: the whole payload. */
  @Column({ name: 'event_params', type: 'text', nullable: true, transformer: nullableJson })
  eventParams!: StoredJson;

  @Column({ name: 'start_at', type: 'bigint', nullable: true, transformer: millis })
  startAt!: number | null;

  @Column({ name: 'end_at', type: 'bigint', nullable: true, transformer: millis })
  endAt!: number | null;

  @Column({ name: 'max_fires', type: 'int', nullable: true })
  maxFires!: number | null;

  @Column({ name: 'fire_count', type: 'int', default: 0 })
  fireCount!: number;

  @Column({ name: 'misfire_policy', type: 'varchar', length: 16 })
  misfirePolicy!: MisfirePolicy;

  @Column({ name: 'misfire_threshold_ms', type: 'int' })
  misfireThresholdMs!: number;

  @Column({ type: 'int', default: 0 })
  priority!: number;

  @Column({ name: 'concurrency_policy', type: 'varchar', length: 16 })
  concurrencyPolicy!: ConcurrencyPolicy;

  @Column({ name: 'timeout_ms', type: 'int' })
  timeoutMs!: number;

  @Column({ name: 'start_deadline_ms', type: 'int' })
  startDeadlineMs!: number;

  /** ALARM or GIVE_UP (domain StartLatePolicy): what a run not sent within its start deadline becomes. */
  @Column({ name: 'on_start_late', type: 'varchar', length: 8, default: 'ALARM' })
  onStartLate!: StartLatePolicy;

  @Column({ name: 'retry_max_attempts', type: 'int' })
  retryMaxAttempts!: number;

  @Column({ name: 'retry_backoff_base_ms', type: 'int' })
  retryBackoffBaseMs!: number;

  @Column({ name: 'retry_backoff_max_ms', type: 'int' })
  retryBackoffMaxMs!: number;

  /** 0–1, stored in thousandths to keep one integer type on both databases. */
  @Column({ name: 'retry_jitter_permille', type: 'int' })
  retryJitterPermille!: number;

  @Column({ name: 'calendar_id', type: 'int', nullable: true })
  calendarId!: number | null;

  /** Alarm types this task raises, JSON array. */
  @Column({ name: 'alarm_types', type: 'text', transformer: json })
  alarmTypes!: AlarmType[];

  @Column({ name: 'alarm_silence_ms', type: 'int' })
  alarmSilenceMs!: number;

  @Column({ type: 'boolean', default: false })
  paused!: boolean;

  /** Pause the task when its last this many runs all failed or timed out; null: never. */
  @Column({ name: 'pause_after_failures', type: 'int', nullable: true })
  pauseAfterFailures!: number | null;

  /** The other scheduler's item the task was imported from (domain TaskDefinition.importedFrom); null: not imported. */
  @Column({ name: 'imported_from', type: 'varchar', length: 1000, nullable: true })
  importedFrom!: string | null;

  /** Domain KeyConcurrency { key, limit, onLimit } as JSON; null: no bound. */
  @Column({ name: 'key_concurrency', type: 'text', nullable: true, transformer: nullableJson })
  keyConcurrency!: StoredJson;

  /** Domain KeyRateLimit { key, perSecond, burst } as JSON; null: no bound. */
  @Column({ name: 'key_rate', type: 'text', nullable: true, transformer: nullableJson })
  keyRate!: StoredJson;

  /** Domain KeyDebounce { key, quietMs, maxWaitMs } as JSON; null: none. */
  @Column({ name: 'key_debounce', type: 'text', nullable: true, transformer: nullableJson })
  keyDebounce!: StoredJson;

  /** Domain KeyThrottle { key, limit, periodMs, keep } as JSON; null: none. */
  @Column({ name: 'key_throttle', type: 'text', nullable: true, transformer: nullableJson })
  keyThrottle!: StoredJson;

  /** SINGLE, BROADCAST or SHARDED (domain FanOut). */
  @Column({ name: 'fan_out_mode', type: 'varchar', length: 16, default: 'SINGLE' })
  fanOutMode!: FanOutMode;

  /** SHARDED only: how many shards. */
  @Column({ name: 'fan_out_shards', type: 'int', nullable: true })
  fanOutShards!: number | null;

  @Column({ name: 'fan_out_fail_when', type: 'varchar', length: 16, default: 'ANY_SHARD_FAILS' })
  fanOutFailWhen!: FanOutFailWhen;

  /** How many times the task's backfills were cancelled: a backfill being written stops when it changes (the console's backfills.service). */
  @Column({ name: 'backfill_cancels', type: 'int', default: 0 })
  backfillCancels!: number;

  /** The first fire time the planner has not yet turned into a run. Null: nothing left to plan. */
  @Column({ name: 'next_fire_at', type: 'bigint', nullable: true, transformer: millis })
  nextFireAt!: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: millis })
  updatedAt!: number;

  /**
   * SHA-256 of the task's definition as a tasks-as-code file last applied it, or null for a task
   * not managed by a file. The console warns before editing a managed task; a definition whose
   * hash differs has drifted from its file.
   */
  @Column({ name: 'managed_hash', type: 'varchar', length: 64, nullable: true })
  managedHash!: string | null;

  /** Optimistic lock for console edits racing the planner. */
  @Column({ type: 'int', default: 1 })
  version!: number;
}
