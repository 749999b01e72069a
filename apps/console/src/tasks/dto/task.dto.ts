import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import {
  ALARM_TYPES,
  KEY_ON_LIMIT,
  type KeyOnLimit,
  THROTTLE_KEEP,
  type ThrottleKeep,
  CONCURRENCY_POLICIES,
  FAN_OUT_FAIL_WHEN,
  FAN_OUT_MODES,
  MISFIRE_POLICIES,
  REPEATED_TIME_POLICIES,
  SKIPPED_TIME_POLICIES,
  START_LATE_POLICIES,
  TRIGGER_KINDS,
  type AlarmType,
  type ConcurrencyPolicy,
  type FanOutFailWhen,
  type FanOutMode,
  type JsonValue,
  type MisfirePolicy,
  type RepeatedTimePolicy,
  type SkippedTimePolicy,
  type StartLatePolicy,
  type TriggerKind,
  JSON_PATH_PATTERN,
  MAX_DEBOUNCE_WAIT_MS,
  MAX_JSON_PATH_LENGTH,
  MAX_KEY_GROUP_LENGTH,
  MAX_KEY_LIMIT,
  MAX_KEY_RATE,
  MAX_THROTTLE_LIMIT,
  MAX_WINDOW_MS,
  MIN_KEY_RATE,
  MIN_WINDOW_MS,
  MAX_INT32,
  MIN_TIMEOUT_MS,
} from '@baton/domain';
import { FieldErrorView } from '../../common/error-body.view';
import { IntQuery, ToBoolean } from '../../common/query';
import type * as Api from '../../api-types';
import { ANY_JSON, Raw } from '../../common/raw-json';

export class TriggerDoc implements Api.TaskTrigger {
  @ApiProperty({ enum: TRIGGER_KINDS }) kind!: TriggerKind;
  @ApiPropertyOptional({ description: 'FIXED_RATE: interval (ms, 100 to 315 360 000 000 = 10 years)' }) intervalMs?: number;
  @ApiPropertyOptional({ description: 'FIXED_DELAY: delay after the previous run finished (ms, 100 to 315 360 000 000 = 10 years)' }) delayMs?: number;
  @ApiPropertyOptional({ description: 'CRON: 6 fields (seconds first) or 5', example: '0 */5 * * * *' }) expression?: string;
  @ApiPropertyOptional({ description: 'CRON: IANA time zone', example: 'Europe/Berlin' }) timeZone?: string;
  @ApiPropertyOptional({
    enum: REPEATED_TIME_POLICIES,
    description: 'CRON: a local time the clocks repeat (going back): ONCE_LATER (default, as Quartz) fires once, after the clocks went back; ONCE_EARLIER once, before; TWICE at both. Left out of an answer when it is the default',
  })
  repeatedTime?: RepeatedTimePolicy;
  @ApiPropertyOptional({
    enum: SKIPPED_TIME_POLICIES,
    description: 'CRON: a local time the clocks skip (going forward): SKIP (default, as Quartz) does not fire; FIRE_LATE fires once at the first instant after the gap. Left out of an answer when it is the default',
  })
  skippedTime?: SkippedTimePolicy;
  @ApiPropertyOptional({ description: 'ONCE: epoch ms, 0 to 253 402 300 799 999 (9999-12-31)' }) at?: number;
  @ApiPropertyOptional({ description: 'EVENT: the name of the events that start the task (1-100 of A-Z a-z 0-9 . _ - :)', example: 'order.paid' }) event?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'EVENT: what the payload must hold, by JSON path: a string, number, boolean or null (equal), or { "exists": true|false }; every entry must hold (default {}: every event of the name)',
    example: { 'customer.tier': 'gold', 'order.id': { exists: true } },
  })
  filter?: Record<string, JsonValue>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: "EVENT: the run's params as param name → JSON path of the payload (a path the payload lacks leaves its param out); null (default): the whole payload",
    example: { orderId: 'order.id', tier: 'customer.tier' },
  })
  params?: Record<string, string> | null;
}

export class RetryDoc {
  @ApiPropertyOptional({ default: 1, description: 'Attempts including the first' }) maxAttempts?: number;
  @ApiPropertyOptional({ default: 1000 }) backoffBaseMs?: number;
  @ApiPropertyOptional({ default: 60000 }) backoffMaxMs?: number;
  @ApiPropertyOptional({ default: 0.2, minimum: 0, maximum: 1 }) jitter?: number;
}

export class AlarmSettingsDoc {
  @ApiPropertyOptional({ enum: ALARM_TYPES, isArray: true }) types?: AlarmType[];
  @ApiPropertyOptional({ default: 60000 }) silenceMs?: number;
}

/**
 * A key bound's `key`, as the domain checks it (jsonPathProblem): a JSON path of the params of at
 * most MAX_JSON_PATH_LENGTH characters.
 */
const KEY_PATH = { type: String, pattern: JSON_PATH_PATTERN.source, minLength: 1, maxLength: MAX_JSON_PATH_LENGTH, example: 'customerId' } as const;
/** A key bound's `group`, as the domain checks it: a name of 1 to MAX_KEY_GROUP_LENGTH characters. */
const KEY_GROUP_PATTERN = `^[A-Za-z0-9._-]{1,${MAX_KEY_GROUP_LENGTH}}$`;

export class KeyConcurrencyDoc {
  @ApiProperty({ ...KEY_PATH, description: `JSON path of the run's params whose value is the key (customer.id): keys of A-Z a-z 0-9 _ $ - joined by dots, at most ${MAX_JSON_PATH_LENGTH} characters; a missing or null value, and '', are one key, the empty one` })
  key!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_KEY_LIMIT, description: 'Most runs of one key going at once (claimed, sent, running, waiting for a retry)' })
  limit!: number;
  @ApiPropertyOptional({ enum: KEY_ON_LIMIT, default: 'QUEUE', description: "QUEUE: a run beyond the limit waits HELD until a run of its key ends; CANCEL_NEW: it is cancelled; CANCEL_OLDEST: the key's oldest going run is cancelled (aborted) instead" })
  onLimit?: KeyOnLimit;
  @ApiPropertyOptional({ type: String, example: 'customer-sync', pattern: KEY_GROUP_PATTERN, description: "A key group of the tenant: the tasks naming it share their keys, a key's runs of them all counted together, each run admitted by its own task's limit and onLimit; absent (or null): the task's own keys" })
  group?: string;
}

export class KeyRateLimitDoc {
  @ApiProperty({ ...KEY_PATH, description: "JSON path of the run's params whose value is the key, as concurrency.key" })
  key!: string;
  @ApiProperty({ type: Number, minimum: MIN_KEY_RATE, maximum: MAX_KEY_RATE, example: 2, description: `Runs started per second per key, from 1/86400 (one a day) to ${MAX_KEY_RATE} (0.5: one every two seconds)` })
  perSecond!: number;
  @ApiPropertyOptional({ type: 'integer', default: 1, minimum: 1, maximum: MAX_KEY_RATE, description: 'Most runs of one key started at once after a quiet time (the token bucket size)' })
  burst?: number;
  @ApiPropertyOptional({ type: String, example: 'crm-api', pattern: KEY_GROUP_PATTERN, description: "A key group of the tenant, as concurrency.group: the tasks naming it take a key's tokens from one bucket, each run at its own task's perSecond and burst; absent (or null): the task's own buckets" })
  group?: string;
}

/** A stored key bound as answered: every field with its default, `group` only when it has one. */
type KeyBoundView<D extends { group?: string }> = Required<Omit<D, 'group'>> & Pick<D, 'group'>;

export class KeyDebounceDoc {
  @ApiProperty({ ...KEY_PATH, description: "JSON path of the run's params whose value is the key, as concurrency.key" })
  key!: string;
  @ApiProperty({ type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS, example: 5000, description: 'How long a key must be quiet (no submission) before its one run starts, in ms' })
  quietMs!: number;
  @ApiPropertyOptional({ type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_DEBOUNCE_WAIT_MS, description: 'Longest a burst waits from its first submission, in ms, quietMs to 7 days (less than quietMs is a 400); default 10 × quietMs (at most 7 days)' })
  maxWaitMs?: number;
}

export class KeyThrottleDoc {
  @ApiProperty({ ...KEY_PATH, description: "JSON path of the run's params whose value is the key, as concurrency.key" })
  key!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_THROTTLE_LIMIT, description: 'Most runs of one key started per period' })
  limit!: number;
  @ApiProperty({ type: 'integer', minimum: MIN_WINDOW_MS, maximum: MAX_WINDOW_MS, example: 60000, description: 'The period in ms; it starts with the first submission after the previous one ended' })
  periodMs!: number;
  @ApiPropertyOptional({
    enum: THROTTLE_KEEP,
    default: 'LAST',
    description:
      "Submissions beyond the limit: LAST folds them into one run at the period's end with the last one's params; FIRST drops them: a trigger is answered 409 (code CONFLICT, errors naming `throttle`), a batch's item status 409, an event's task a refusedRuns entry of status 409",
  })
  keep?: ThrottleKeep;
}

export class FanOutDoc {
  @ApiPropertyOptional({ enum: FAN_OUT_MODES, default: 'SINGLE', description: 'SINGLE: one executor runs each fire; BROADCAST: every UP executor of the app, one shard each; SHARDED: `shards` shards spread over them' })
  mode?: FanOutMode;
  @ApiPropertyOptional({ type: Number, nullable: true, default: null, minimum: 1, maximum: 1000, description: 'SHARDED only: the number of shards (ctx.shardTotal)' })
  shards?: number | null;
  @ApiPropertyOptional({
    enum: FAN_OUT_FAIL_WHEN,
    default: 'ANY_SHARD_FAILS',
    description: 'When the run fails once its shards have ended (each after its own retries): ANY_SHARD_FAILS, or ALL_SHARDS_FAIL (it succeeds while one shard did)',
  })
  failWhen?: FanOutFailWhen;
}

/**
 * A task as sent to POST /api/tasks and PUT /api/tasks/:id (omitted fields take their
 * defaults) and, all optional, PATCH /api/tasks/:id. This class only declares which fields
 * exist (unknown ones are a 400); what values are valid is decided by the domain's
 * validateTask, so the console and every other client share one set of rules.
 */
export class TaskBodyDto {
  @ApiProperty({ type: String, example: 'nightly-report', description: 'Unique within the tenant; A-Z a-z 0-9 . _ -' })
  @IsOptional()
  @Raw()
  name?: unknown;

  @ApiPropertyOptional({ type: String, example: 'reports', default: 'default', description: 'Task group label (pause/resume as a whole)' })
  @IsOptional()
  @Raw()
  group?: unknown;

  @ApiProperty({ type: String, example: 'billing', description: 'Executor app that runs the task' })
  @IsOptional()
  @Raw()
  executorApp?: unknown;

  @ApiProperty({ type: String, example: 'closeDay', description: 'Handler name inside the executor app' })
  @IsOptional()
  @Raw()
  handler?: unknown;

  @ApiPropertyOptional({ ...ANY_JSON, default: {}, description: 'Handler params: any JSON value, ≤ 64 000 bytes' })
  @IsOptional()
  @Raw()
  params?: unknown;

  @ApiProperty({ type: TriggerDoc })
  @IsOptional()
  @Raw()
  trigger?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'No fire before (epoch ms, 0 to 253 402 300 799 999 = 9999-12-31)' })
  @IsOptional()
  @Raw()
  startAt?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'No fire after (epoch ms, 0 to 253 402 300 799 999 = 9999-12-31)' })
  @IsOptional()
  @Raw()
  endAt?: unknown;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, nullable: true, description: 'Fire times at most (null: no bound); a missed time folded into one run or skipped counts as one that ran (MANUAL, How a run goes)' })
  @IsOptional()
  @Raw()
  maxFires?: unknown;

  @ApiPropertyOptional({ enum: MISFIRE_POLICIES, default: 'FIRE_ONCE_NOW' })
  @IsOptional()
  @Raw()
  misfirePolicy?: unknown;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_INT32, default: 5000 })
  @IsOptional()
  @Raw()
  misfireThresholdMs?: unknown;

  @ApiPropertyOptional({ type: Number, default: 0, minimum: -100, maximum: 100 })
  @IsOptional()
  @Raw()
  priority?: unknown;

  @ApiPropertyOptional({ enum: CONCURRENCY_POLICIES, default: 'ALLOW' })
  @IsOptional()
  @Raw()
  concurrencyPolicy?: unknown;

  @ApiPropertyOptional({ type: 'integer', minimum: MIN_TIMEOUT_MS, maximum: MAX_INT32, default: 300000 })
  @IsOptional()
  @Raw()
  timeoutMs?: unknown;

  @ApiPropertyOptional({ type: Number, default: 10000 })
  @IsOptional()
  @Raw()
  startDeadlineMs?: unknown;

  @ApiPropertyOptional({
    enum: START_LATE_POLICIES,
    default: 'ALARM',
    description:
      'A run not sent to an executor within startDeadlineMs of its fire time: ALARM raises START_LATE and the run waits on; GIVE_UP ends it FAILED (not retried), its START_LATE saying so. A run already sent (DISPATCHED, ACCEPTED) is never given up',
  })
  @IsOptional()
  @Raw()
  onStartLate?: unknown;

  @ApiPropertyOptional({ type: RetryDoc })
  @IsOptional()
  @Raw()
  retry?: unknown;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Exclusion calendar of the tenant, by name' })
  @IsOptional()
  @Raw()
  calendarName?: unknown;

  @ApiPropertyOptional({ type: AlarmSettingsDoc })
  @IsOptional()
  @Raw()
  alarms?: unknown;

  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @Raw()
  paused?: unknown;

  @ApiPropertyOptional({ type: Number, nullable: true, default: null, description: 'Pause the task (TASK_PAUSED alarm) when its last this many runs all failed or timed out, 1–1000; null: never' })
  @IsOptional()
  @Raw()
  pauseAfterFailures?: unknown;

  @ApiPropertyOptional({ type: FanOutDoc, description: 'How one fire spreads over the executors of the app (broadcast, sharding); given in part, the rest default' })
  @IsOptional()
  @Raw()
  fanOut?: unknown;

  @ApiPropertyOptional({ type: String, nullable: true, default: null, description: 'The item of another scheduler the task was imported from (baton import: a Quartz trigger, an XXL-JOB job), up to 1000 characters; tasks as code refuse to create a second task of the same one. Null: not imported' })
  @IsOptional()
  @Raw()
  importedFrom?: unknown;

  @ApiPropertyOptional({ type: KeyConcurrencyDoc, nullable: true, default: null, description: 'At most `limit` runs going at once per key of the params; null: no bound' })
  @IsOptional()
  @Raw()
  concurrency?: unknown;

  @ApiPropertyOptional({ type: KeyRateLimitDoc, nullable: true, default: null, description: 'At most `perSecond` runs started per second per key of the params, in bursts of `burst`; null: no bound' })
  @IsOptional()
  @Raw()
  rateLimit?: unknown;

  @ApiPropertyOptional({ type: KeyDebounceDoc, nullable: true, default: null, description: "One run per burst of submissions (events, triggers, batches) of a key, started once the key was quiet for quietMs (at the latest maxWaitMs after the burst's first), with the last one's params; null: none" })
  @IsOptional()
  @Raw()
  debounce?: unknown;

  @ApiPropertyOptional({ type: KeyThrottleDoc, nullable: true, default: null, description: 'At most `limit` runs per period per key of submissions (events, triggers, batches), the rest dropped or folded into one run (keep); null: none. Not with debounce.' })
  @IsOptional()
  @Raw()
  throttle?: unknown;
}

export class UpdateTaskDto extends TaskBodyDto {
  @ApiPropertyOptional({ description: 'Optimistic lock: the version you read; a 409 when the task changed since' })
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;
}

/** PATCH: every field optional; `retry` and `alarms` may be given in part. */
export class PatchTaskDto extends PartialType(UpdateTaskDto) {}

export class TaskQuery {
  @ApiPropertyOptional({ description: 'Substring of the task name' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  search?: string;

  @ApiPropertyOptional({ description: 'Task group label' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  group?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  paused?: boolean;

  @ApiPropertyOptional({ description: 'Opaque cursor: the `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(400)
  cursor?: string;

  @IntQuery('Page size, 1-500 (default 50)', 1, 500)
  limit?: number;
}

/** POST /api/tasks/:id/copy: the copy's name (checked as a task's name is), and whether it starts paused. */
export class CopyTaskDto {
  @ApiProperty({ type: String, example: 'nightly-report-copy', description: 'Unique within the tenant; A-Z a-z 0-9 . _ -' })
  @IsOptional()
  @Raw()
  name?: unknown;

  @ApiPropertyOptional({ type: Boolean, description: "Default: the source task's" })
  @IsOptional()
  @Raw()
  paused?: unknown;
}

export class TaskView implements Api.Task {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() group!: string;
  @ApiProperty() executorApp!: string;
  @ApiProperty() handler!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Handler params; a viewer sees secret-named values (`apiToken`, `dbPassword`, …) as `[redacted]`' }) params!: JsonValue;
  @ApiProperty({ type: TriggerDoc }) trigger!: TriggerDoc;
  @ApiProperty({ type: Number, nullable: true }) startAt!: number | null;
  @ApiProperty({ type: Number, nullable: true }) endAt!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maxFires!: number | null;
  @ApiProperty({ enum: MISFIRE_POLICIES }) misfirePolicy!: MisfirePolicy;
  @ApiProperty() misfireThresholdMs!: number;
  @ApiProperty() priority!: number;
  @ApiProperty({ enum: CONCURRENCY_POLICIES }) concurrencyPolicy!: ConcurrencyPolicy;
  @ApiProperty() timeoutMs!: number;
  @ApiProperty() startDeadlineMs!: number;
  @ApiProperty({ enum: START_LATE_POLICIES }) onStartLate!: StartLatePolicy;
  @ApiProperty({ type: RetryDoc }) retry!: Required<RetryDoc>;
  @ApiProperty({ type: String, nullable: true }) calendarName!: string | null;
  @ApiProperty({ type: AlarmSettingsDoc }) alarms!: Required<AlarmSettingsDoc>;
  @ApiProperty() paused!: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'Pauses itself after this many failed runs in a row; null: never' }) pauseAfterFailures!: number | null;
  @ApiProperty({ type: FanOutDoc }) fanOut!: Required<FanOutDoc>;
  @ApiProperty({ type: KeyConcurrencyDoc, nullable: true }) concurrency!: KeyBoundView<KeyConcurrencyDoc> | null;
  @ApiProperty({ type: KeyRateLimitDoc, nullable: true }) rateLimit!: KeyBoundView<KeyRateLimitDoc> | null;
  @ApiProperty({ type: KeyDebounceDoc, nullable: true }) debounce!: Required<KeyDebounceDoc> | null;
  @ApiProperty({ type: KeyThrottleDoc, nullable: true }) throttle!: Required<KeyThrottleDoc> | null;
  @ApiProperty({ type: String, nullable: true, description: 'The item of another scheduler the task was imported from (baton import); null: not imported' }) importedFrom!: string | null;
  @ApiProperty({ description: 'Fires made so far' }) fireCount!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'The next instant the task fires that has not come (epoch ms): the earliest of its scheduled fires the engines prepared ahead (BATON_LOOK_AHEAD_MS) that has not ended, and the next fire time the planner has yet to plan; null: none to come',
  })
  nextFireAt!: number | null;
  @ApiProperty() createdAt!: number;
  @ApiProperty() updatedAt!: number;
  @ApiProperty({ description: 'Optimistic-lock version; send it back on PUT/PATCH' }) version!: number;
  @ApiProperty({ description: 'Applied from a tasks-as-code file (`baton apply`): edit the file rather than the task' }) managed!: boolean;
  @ApiProperty({ description: 'A managed task changed since its file was last applied (the next apply puts the file\'s definition back)' }) drifted!: boolean;
}

export class TaskPage implements Api.Page<TaskView> {
  @ApiProperty({ type: [TaskView] }) items!: TaskView[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

export class GroupPauseView {
  @ApiProperty() group!: string;
  @ApiProperty() paused!: boolean;
  @ApiProperty({ description: 'Tasks of the group changed' }) tasks!: number;
}

export class DeleteTaskQuery {
  @ApiPropertyOptional({ description: "Also delete the task's dependency edges (otherwise a task with edges is a 409)" })
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  cascade?: boolean;
}

/** Most tasks one POST /tasks/batch creates. */
export const MAX_TASKS_PER_BATCH = 1000;

/** POST /tasks/batch: tasks created together, all or none. */
export class TaskBatchDto {
  @ApiProperty({ type: [TaskBodyDto], minItems: 1, maxItems: MAX_TASKS_PER_BATCH, description: `1 to ${MAX_TASKS_PER_BATCH} tasks, each as POST /tasks takes it` })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_TASKS_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => TaskBodyDto)
  tasks!: TaskBodyDto[];
}

/** Default pace of a backfill's runs. */
export const DEFAULT_BACKFILL_RATE = 10;

/** Which past fires to run (libs/domain backfillRange decides what is valid). */
export class BackfillDto {
  @ApiProperty({ type: Number, example: 1_795_000_000_000, description: 'First fire time to run, inclusive (epoch ms)' })
  @IsOptional()
  @Raw()
  from?: unknown;

  @ApiProperty({ type: Number, description: 'Fire times before this (epoch ms), at most now' })
  @IsOptional()
  @Raw()
  to?: unknown;

  @ApiPropertyOptional({ type: Number, default: DEFAULT_BACKFILL_RATE, description: 'Runs made due per second, 1–1000' })
  @IsOptional()
  @Raw()
  ratePerSec?: unknown;
}

export class BackfillView {
  @ApiProperty({ description: 'Fires of the trigger in the range' }) fires!: number;
  @ApiProperty({ description: 'Runs created (cause BACKFILL)' }) created!: number;
  @ApiProperty({ description: 'Fires that already had a run (never run twice)' }) alreadyRun!: number;
  @ApiProperty({ description: 'Fires not written because the backfill was cancelled (DELETE) while its runs were being written; 0 otherwise' }) notWritten!: number;
  @ApiProperty({ type: Number, nullable: true }) firstDueAt!: number | null;
  @ApiProperty({ type: Number, nullable: true }) lastDueAt!: number | null;
}

export class BackfillCancelView {
  @ApiProperty({ description: 'Backfill runs not sent yet, now CANCELLED' }) cancelled!: number;
}

/** A task as saved, with what the save should know. */
export class SavedTaskView extends TaskView implements Api.SavedTask {
  @ApiProperty({
    type: [FieldErrorView],
    description: 'Saved, but: no executor of its app is up (`executorApp`), or none offers its handler (`handler`, with the handlers they offer). Empty when a live executor offers it.',
  })
  warnings!: FieldErrorView[];
}

export class TaskBatchView {
  @ApiProperty({ type: [SavedTaskView], description: 'The tasks created, in the order given' }) items!: SavedTaskView[];
}
