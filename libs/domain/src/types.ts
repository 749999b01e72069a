/**
 * Terminology — the words every room of Baton uses, defined once.
 *
 * - **tenant**: a customer of the platform. Owns tasks, runs, executors, alarms,
 *   calendars, users and API keys. Identified by a short slug (`acme`), which also
 *   names its alarm topic (`baton.alarms.acme`).
 * - **engine group**: a named subset of the engine cluster. A tenant is bound to one
 *   group; only engines serving that group plan, claim and dispatch its runs.
 * - **task** (task definition): *what* to run (executor app + handler + params),
 *   *when* (a trigger plus start/end time, max fires, exclusion calendar) and *how*
 *   (misfire, concurrency, timeout, start deadline, retry, priority).
 * - **task group**: a free-form label on tasks (`billing`, `reports`) that can be
 *   paused and resumed as a whole. Not to be confused with an engine group.
 * - **trigger**: the rule that yields fire times: MANUAL, FIXED_RATE, FIXED_DELAY,
 *   CRON (with seconds and an IANA time zone) or ONCE; or EVENT, whose runs the tenant's events start.
 * - **event**: something that happened in a tenant's business (`order.paid`), sent to Baton with
 *   a JSON payload; it starts a run of each of the tenant's tasks whose EVENT trigger it matches.
 * - **fire time** (scheduled time): an instant at which a trigger says the task runs.
 * - **run**: one fire of a task. A row written before anything is sent, moved through
 *   the run state machine (`run-state.ts`) by guarded, conditional updates.
 * - **fire key**: what makes a run unique within its task. For scheduled fires it is
 *   the fire time itself, so (task, scheduled time) can never fire twice.
 * - **flow**: the set of runs started by one root run and its dependency edges.
 *   A child fires at most once per flow; fan-in joins parents within a flow.
 * - **fan-out run**: a run of a BROADCAST or SHARDED task. It is never sent anywhere itself: when
 *   it starts, it writes its **shards** and runs (ACCEPTED) until every shard has ended; the task's
 *   `failWhen` then makes it SUCCEEDED or FAILED, and only then do its follow-ups happen.
 * - **shard**: one part of a fan-out run — a run of the same task, cause SHARD, whose
 *   `parent_run_id` is the fan-out run, told its `shardIndex` of `shardTotal`. A broadcast shard is
 *   pinned to one executor; a sharded task's shards go to any UP executor of the app. Each shard
 *   retries in place by the task's retry policy, so a retry re-runs only the failed shards.
 * - **attempt**: a run is retried in place (same row, attempt + 1) after RETRY_WAIT,
 *   so a retry inside a chain re-runs that one step, never the whole chain.
 * - **misfire**: a fire time that passed by more than the task's misfire threshold
 *   before any engine could plan it (downtime, pause, overload).
 * - **executor**: a business-service process that mounts the executor wrapper (SDK)
 *   and serves one executor app for one tenant.
 * - **slot**: one unit of an engine's dispatch concurrency. A slot is held only from
 *   "send" to "ack" — milliseconds — never while the work runs.
 * - **lease**: an engine's time-limited ownership of a claimed run. A lease that is not
 *   renewed (engine dead) lets the survivors take the run over.
 * - **alarm**: a notable event (START_LATE, TIMEOUT, FAILED, …) written in the same
 *   transaction as its cause (the outbox) and published to the tenant's topic.
 *
 * All instants are epoch milliseconds (`Millis`), UTC. Time zones matter only for
 * trigger math and calendars, which take an IANA zone explicitly.
 */

/** Epoch milliseconds, UTC. */
export type Millis = number;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const TRIGGER_KINDS = ['MANUAL', 'FIXED_RATE', 'FIXED_DELAY', 'CRON', 'ONCE', 'EVENT'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/** The rule that yields a task's fire times. */
export type Trigger =
  /** Fires only when someone asks (console, API) or a parent task triggers it. */
  | { kind: 'MANUAL' }
  /** Fires every `intervalMs`, anchored at the task's start time, whatever the runs take. */
  | { kind: 'FIXED_RATE'; intervalMs: number }
  /** Fires `delayMs` after the previous run finished; the first fire is at the start time. */
  | { kind: 'FIXED_DELAY'; delayMs: number }
  /**
   * Six-field cron (seconds first; five fields means second 0), evaluated in `timeZone`; what it
   * does on daylight-saving days is `repeatedTime` and `skippedTime` (absent: the default, which
   * is Quartz's; a stored or compared trigger leaves a default out, trigger/cron-dst.ts).
   */
  | { kind: 'CRON'; expression: string; timeZone: string; repeatedTime?: RepeatedTimePolicy; skippedTime?: SkippedTimePolicy }
  /** Fires once at `at`. */
  | { kind: 'ONCE'; at: Millis }
  /**
   * Fires when the tenant sends an event named `event` whose payload passes `filter` (libs/domain
   * event/event-match.ts); the run's params are the payload, or the `params` projection of it.
   * Never fires by itself.
   */
  | { kind: 'EVENT'; event: string; filter: EventFilter; params: EventProjection | null };

/**
 * What an event's payload must hold for an EVENT trigger to fire, by JSON path (`customer.tier`):
 * a JSON value (the value there equals it) or `{ exists: true | false }` (something is there, or
 * nothing). Every entry must hold; `{}` passes every payload.
 */
export type EventFilter = Record<string, JsonValue>;

/** A run's params made from an event's payload: each param name and the JSON path its value is read from. */
export type EventProjection = Record<string, string>;

export const REPEATED_TIME_POLICIES = ['ONCE_LATER', 'ONCE_EARLIER', 'TWICE'] as const;
/**
 * What a cron does with a local time that occurs twice, when the clocks go back (an hour in
 * most zones, half an hour on Lord Howe Island):
 * - ONCE_LATER (default): it fires once, at the second occurrence (after the clocks went back),
 *   as Quartz's CronTrigger does — so every fire in the repeated range is in standard time.
 * - ONCE_EARLIER: it fires once, at the first occurrence (before the clocks go back).
 * - TWICE: it fires at both occurrences (the elapsed time between fires stays even).
 */
export type RepeatedTimePolicy = (typeof REPEATED_TIME_POLICIES)[number];

export const SKIPPED_TIME_POLICIES = ['SKIP', 'FIRE_LATE'] as const;
/**
 * What a cron does with a local time that does not occur, when the clocks go forward:
 * - SKIP (default): it does not fire for it, as Quartz's CronTrigger does.
 * - FIRE_LATE: it fires once at the first instant after the gap (e.g. 03:00 for 02:30), for
 *   however many times of the gap it matches; once in all when the first instant after the gap
 *   is one of its own times.
 */
export type SkippedTimePolicy = (typeof SKIPPED_TIME_POLICIES)[number];

/**
 * What daylight saving did to a cron fire, for people reading a preview (trigger/dst-marks.ts):
 * - REPEATED_EARLIER / REPEATED_LATER: its local time occurs twice that day (clocks go back);
 *   this fire is at the first / second occurrence.
 * - FIRED_LATE: a local time the clocks skipped fires here, the first instant after the gap (FIRE_LATE).
 * - AFTER_SKIPPED: a local time the clocks skipped, just before this fire, did not fire (SKIP).
 * Either one also where the first instant after the gap is one of the cron's own times, fired once.
 */
export type DstMark = 'REPEATED_EARLIER' | 'REPEATED_LATER' | 'FIRED_LATE' | 'AFTER_SKIPPED';

export const MISFIRE_POLICIES = ['FIRE_ONCE_NOW', 'FIRE_ALL_MISSED', 'SKIP'] as const;
/**
 * What to do with fire times that were missed by more than the misfire threshold:
 * - FIRE_ONCE_NOW: one run now stands for all the missed ones (Quartz "fire once now").
 * - FIRE_ALL_MISSED: every missed fire time gets its run (Quartz "ignore misfires").
 * - SKIP: the missed fires are recorded as SKIPPED; the next regular fire time runs.
 */
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

export const CONCURRENCY_POLICIES = ['ALLOW', 'FORBID', 'REPLACE'] as const;
/**
 * What to do when a run is due while an earlier run of the same task is still active:
 * - ALLOW: run both.
 * - FORBID: the new run is SKIPPED.
 * - REPLACE: the active run is cancelled (abort sent to its executor), the new one runs.
 */
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];

export const START_LATE_POLICIES = ['ALARM', 'GIVE_UP'] as const;
/**
 * What becomes of a run not sent to an executor within its task's start deadline (`startDeadlineMs`
 * after the instant its start counts from: its fire time, a retry's time, or when its own keys let
 * it go — the START_LATE rule):
 * - ALARM: a START_LATE alarm; the run keeps waiting and runs, late, once an executor takes it.
 * - GIVE_UP: the run ends FAILED, not retried, and its START_LATE alarm says it was given up — after
 *   an outage of the executors only the fires from then on run (XXL-JOB fails such a fire at once;
 *   Temporal's schedule-to-start timeout). Only a run provably never sent is given up (PENDING,
 *   RETRY_WAIT, CLAIMED and held in an engine); one sent to an executor may be running and is left.
 */
export type StartLatePolicy = (typeof START_LATE_POLICIES)[number];

export const KEY_ON_LIMIT = ['QUEUE', 'CANCEL_NEW', 'CANCEL_OLDEST'] as const;
/**
 * What a run of a keyed task meets when its key already has `limit` runs going:
 * - QUEUE: it waits, HELD, and starts when one of them ends (oldest held first).
 * - CANCEL_NEW: it is CANCELLED.
 * - CANCEL_OLDEST: the key's oldest going run is CANCELLED (abort sent) and this one takes its place.
 */
export type KeyOnLimit = (typeof KEY_ON_LIMIT)[number];

/**
 * At most `limit` runs of the task going at once per value of `key`, a JSON path of the run's
 * params (`customerId`, `order.customer.id`). Runs whose params have nothing (or null) at the
 * path share one key, the empty one.
 */
export interface KeyConcurrency {
  key: string;
  /** 1–1000. */
  limit: number;
  /** Default QUEUE. */
  onLimit: KeyOnLimit;
  /**
   * A key group of the tenant (1–64 of A-Z a-z 0-9 . _ -): the tasks naming it share their keys —
   * their runs of one key value are counted together, each admission against its own task's
   * `limit`. Absent: the task's own keys.
   */
  group?: string;
}

/**
 * At most `perSecond` runs of the task started per second per value of `key` (a JSON path of the
 * params, as KeyConcurrency's), with bursts of up to `burst`: a token bucket per key. A run
 * finding no token waits PENDING until its key's next token.
 */
export interface KeyRateLimit {
  key: string;
  /** Tokens added per second, > 0 and ≤ 10 000 (0.5: one run every two seconds). */
  perSecond: number;
  /** Bucket size, 1–10 000. Default 1. */
  burst: number;
  /** A key group of the tenant, as KeyConcurrency's: the tasks naming it take a key's tokens from one bucket, each at its own rate and burst. Absent: the task's own buckets. */
  group?: string;
}

/**
 * Debounce per key: the runs a burst of submissions of one key (events, triggers) would start
 * become one run, started once the key has been quiet for `quietMs` — or at the latest `maxWaitMs`
 * after the burst's first submission — with the params of the last one. `key` is a JSON path of
 * the params, as KeyConcurrency's.
 */
export interface KeyDebounce {
  key: string;
  /** How long a key must be quiet before its run starts: 100 ms to 1 day. */
  quietMs: number;
  /** Longest a burst waits from its first submission, however long it lasts: quietMs to 7 days. Default 10 × quietMs (capped at 7 days). */
  maxWaitMs: number;
}

export const THROTTLE_KEEP = ['FIRST', 'LAST'] as const;
/**
 * What a throttled key does with the submissions beyond its `limit` in a period:
 * - FIRST: they start nothing (the period's first `limit` payloads ran).
 * - LAST: they become one run at the end of the period, with the last one's params (it counts
 *   toward the next period).
 */
export type ThrottleKeep = (typeof THROTTLE_KEEP)[number];

/**
 * Throttle per key: at most `limit` runs started per `periodMs` per value of `key` (a JSON path of
 * the params); what arrives beyond them is dropped or folded into one run at the period's end
 * (`keep`). Unlike KeyRateLimit, which delays every run, a throttle never lets the backlog grow.
 */
export interface KeyThrottle {
  key: string;
  /** Runs started per period and key, 1–1000. */
  limit: number;
  /** The period, 100 ms to 1 day; it starts with the first submission after the previous one ended. */
  periodMs: number;
  /** Default LAST. */
  keep: ThrottleKeep;
}

/** Retries after a failed or timed-out attempt. */
export interface RetryPolicy {
  /** Total attempts including the first; 1 means no retry. Default 1. */
  maxAttempts: number;
  /** Delay before the 2nd attempt; doubles for each further attempt. Default 1000 ms. */
  backoffBaseMs: number;
  /** Upper bound of the backoff delay. Default 60 000 ms. */
  backoffMaxMs: number;
  /** Fraction (0–1) of the delay that is randomised, to spread retry storms. Default 0.2. */
  jitter: number;
}

/** Dates on which a task does not fire, read in the calendar's own time zone. */
export interface ExclusionCalendar {
  name: string;
  /** IANA zone in which `dates` are local dates. */
  timeZone: string;
  /** Local dates, `YYYY-MM-DD`. */
  dates: string[];
}

export const ALARM_TYPES = [
  'START_LATE',
  'TIMEOUT',
  'FAILED',
  'RETRYING',
  'EXECUTOR_DOWN',
  'EXECUTOR_UP',
  'ENGINE_DOWN',
  'DISPATCH_REJECTED',
  'TASK_PAUSED',
  'BACKLOG_LATE',
  'RUN_STARTED_EARLY',
  'CLOCK_SKEW',
  'APPROVAL_REQUESTED',
  'BUSINESS',
] as const;
export type AlarmType = (typeof ALARM_TYPES)[number];

/**
 * What a webhook channel can take: the alarm types, and AUDIT — each change of the tenant's audit
 * log (issue 23). A channel gets AUDIT events only when it names AUDIT: "every type" (null) means
 * every alarm type, since audit events carry the tenant's changes, before and after.
 */
export const WEBHOOK_EVENT_TYPES = [...ALARM_TYPES, 'AUDIT'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * An alarm: what it reports. The one shape behind the `alarms` row (libs/persistence), the message
 * on the tenant's topic (libs/messaging AlarmMessage, which adds its stable id, schema and source)
 * and the console API's alarm (apps/console/src/api-types/alarms.ts, which adds the ack).
 */
export interface Alarm {
  tenantId: string;
  type: AlarmType;
  severity: Severity;
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  /** At most 1000 characters. */
  message: string;
  /** Free-form JSON details (attempt, error, …); null when none. */
  data: JsonValue | null;
  /** Occurrences collapsed into this alarm (per-task silence window); ≥ 1. */
  count: number;
  /** When it was raised, epoch ms (UTC). */
  raisedAt: number;
}

/** An alarm as stored: its row id and its stable id `uid` (null on rows written before uids existed). */
export interface StoredAlarm extends Alarm {
  id: number;
  uid: string | null;
}

/** Which alarms a task raises, and how repeats collapse. */
export interface AlarmSettings {
  /** Alarm types raised for this task. Default: every type. */
  types: AlarmType[];
  /** Repeats of one (task, type) within this window collapse into one alarm with a count. Default 60 000 ms. */
  silenceMs: number;
}

/** Everything that decides when a task fires; the input of the trigger math. */
export interface Schedule {
  trigger: Trigger;
  /** No fire before this instant. Null: from the task's creation. */
  startAt: Millis | null;
  /** No fire after this instant. Null: no end. */
  endAt: Millis | null;
  /** Stop after this many fires. Null: no limit. */
  maxFires: number | null;
  /**
   * Fire times already consumed (counts toward maxFires). A fire time is consumed when it
   * is run, folded into a FIRE_ONCE_NOW run or recorded as SKIPPED; calendar-excluded
   * times are not fire times at all and never count.
   */
  fireCount: number;
  calendar: ExclusionCalendar | null;
  /**
   * When the task was created. FIXED_RATE and FIXED_DELAY need an anchor: `startAt`, or this
   * when `startAt` is null ("from the task's creation"). Other kinds ignore it.
   */
  createdAt?: Millis | null;
}

export const FAN_OUT_MODES = ['SINGLE', 'BROADCAST', 'SHARDED'] as const;
/**
 * Where one fire of a task runs:
 * - SINGLE: on one UP executor of its app (the routing strategy picks it).
 * - BROADCAST: on every UP executor of its app at the time the run starts, one shard each.
 * - SHARDED: as `shards` shards spread over the UP executors of its app (XXL-JOB's sharding
 *   broadcast, ElasticJob's sharding items); a shard whose executor goes away runs elsewhere.
 */
export type FanOutMode = (typeof FAN_OUT_MODES)[number];

export const FAN_OUT_FAIL_WHEN = ['ANY_SHARD_FAILS', 'ALL_SHARDS_FAIL'] as const;
/**
 * When a fan-out run fails, once every shard has ended (after its own retries):
 * - ANY_SHARD_FAILS: one shard not SUCCEEDED fails the run (a job that must be done everywhere).
 * - ALL_SHARDS_FAIL: the run succeeds when at least one shard did (e.g. a best-effort cache flush).
 */
export type FanOutFailWhen = (typeof FAN_OUT_FAIL_WHEN)[number];

/** How one fire of a task spreads over its app's executors. */
export interface FanOut {
  /** Default SINGLE. */
  mode: FanOutMode;
  /** SHARDED only: the number of shards, 1–MAX_SHARDS; null for the other modes. Default null. */
  shards: number | null;
  /** Default ANY_SHARD_FAILS; ignored for SINGLE. */
  failWhen: FanOutFailWhen;
}

/** A task definition as the domain sees it (no ids of storage, no ORM). */
export interface TaskDefinition {
  tenantId: string;
  name: string;
  /** Task group label, for group pause/resume. Default "default". */
  group: string;
  /** Executor app that runs it: routing picks an UP executor of this app of the tenant. */
  executorApp: string;
  /** Handler name inside the executor app. */
  handler: string;
  /** Handler parameters; serialised size capped by MAX_PARAMS_BYTES. Default {}. */
  params: JsonValue;
  trigger: Trigger;
  startAt: Millis | null;
  endAt: Millis | null;
  maxFires: number | null;
  /** Default FIRE_ONCE_NOW. */
  misfirePolicy: MisfirePolicy;
  /** A fire time later than this is a misfire. Default 5 000 ms. */
  misfireThresholdMs: number;
  /** Higher fires first among runs due at the same instant. Default 0, range -100..100. */
  priority: number;
  /** Default ALLOW. */
  concurrencyPolicy: ConcurrencyPolicy;
  /** A run still running after this is TIMED_OUT and aborted. Default 300 000 ms. */
  timeoutMs: number;
  /** A run not dispatched within this of its fire time raises START_LATE. Default 10 000 ms. */
  startDeadlineMs: number;
  /** What a run not dispatched within `startDeadlineMs` becomes (StartLatePolicy). Default ALARM. */
  onStartLate: StartLatePolicy;
  retry: RetryPolicy;
  /** Exclusion calendar, by name within the tenant. Null: none. */
  calendarName: string | null;
  alarms: AlarmSettings;
  paused: boolean;
  /** Default { mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' }. */
  fanOut: FanOut;
  /** The task pauses itself (TASK_PAUSED alarm) when its last this many runs all failed or timed out. Null (default): never. */
  pauseAfterFailures: number | null;
  /** Bound on runs going at once per key of the params. Null (default): none. */
  concurrency: KeyConcurrency | null;
  /** Bound on runs started per second per key of the params. Null (default): none. */
  rateLimit: KeyRateLimit | null;
  /** One run per burst of submissions of a key (events, triggers, batches). Null (default): none. */
  debounce: KeyDebounce | null;
  /** At most `limit` runs per period per key of submissions (events, triggers, batches). Null (default): none. */
  throttle: KeyThrottle | null;
  /**
   * The item of another scheduler this task was imported from (`baton import`: a Quartz trigger,
   * an XXL-JOB job), as text; tasks as code refuse to create a task with the same one as another
   * task kept beside it, which would fire the same job twice. Null (default): not imported.
   */
  importedFrom: string | null;
}

/** BACKFILL: a past fire run late on purpose (POST /api/tasks/{id}/backfill). SHARD: one part of a fan-out run (its parent_run_id). EVENT: started by an event (POST /api/events). */
export const RUN_CAUSES = ['SCHEDULE', 'MANUAL', 'DEPENDENCY', 'BACKFILL', 'SHARD', 'EVENT'] as const;
/** Why a run exists. */
export type RunCause = (typeof RUN_CAUSES)[number];

export const DEPENDENCY_CONDITIONS = ['ON_SUCCESS', 'ON_FAILURE', 'ON_COMPLETION'] as const;
/** When a parent's finished run fires its child. */
export type DependencyCondition = (typeof DEPENDENCY_CONDITIONS)[number];

/** An edge of a tenant's dependency DAG: `child` fires after `parent` (per `condition`). */
export interface DependencyEdge {
  parent: string;
  child: string;
  condition: DependencyCondition;
}

export const APPROVAL_OUTCOMES = ['APPROVE', 'REJECT'] as const;
/** What a decision on an approval step does: APPROVE lets the run go on, REJECT fails it. */
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number];

/** The roles an approval gate may name (an operator has no tenant, so never approves a tenant's run). */
export const APPROVER_ROLES = ['TENANT_ADMIN', 'TENANT_VIEWER'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

/**
 * An approval step on a dependency edge (libs/domain dag/approval-gate.ts): when the edge fires
 * its child, the child's run waits in APPROVAL_WAIT until a person allowed here approves or
 * rejects it, or the deadline decides `onTimeout`.
 */
export interface ApprovalGate {
  /** Users of the tenant with at least this role may decide (TENANT_VIEWER: every user of the tenant). Default null: only `users`. */
  role: ApproverRole | null;
  /** Usernames (an API key: `api-key:<name>`) that may decide whatever their role. Default []. */
  users: string[];
  /** How long the run waits for a decision, from the moment it starts waiting. Default 86 400 000 ms (a day). */
  timeoutMs: number;
  /** The decision the deadline makes. Default REJECT. */
  onTimeout: ApprovalOutcome;
}

export const ROLES = ['OPERATOR', 'TENANT_ADMIN', 'TENANT_VIEWER'] as const;
/**
 * - OPERATOR: runs the platform: tenants, engine groups, users, API keys, engine nodes.
 * - TENANT_ADMIN: reads and changes everything of one tenant.
 * - TENANT_VIEWER: reads everything of one tenant, changes nothing.
 */
export type Role = (typeof ROLES)[number];

/** Size cap of a task's params (and of a run's result), serialised as JSON, in bytes. */
export const MAX_PARAMS_BYTES = 64_000;

export const RUN_STATES = [
  'PENDING',
  'CLAIMED',
  'DISPATCHED',
  'ACCEPTED',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'RETRY_WAIT',
  'CANCELLED',
  'SKIPPED',
  'APPROVAL_WAIT',
  'HELD',
  'COALESCING',
] as const;
/**
 * APPROVAL_WAIT: a run fired by an edge with an approval gate, waiting for a person (it is
 * PENDING once approved, FAILED once rejected).
 * PENDING → CLAIMED → DISPATCHED → ACCEPTED (running) → SUCCEEDED | FAILED | TIMED_OUT,
 * plus RETRY_WAIT (a failed attempt waiting for its backoff), CANCELLED, SKIPPED, and HELD (held
 * by its concurrency key: the key has its limit of runs going; it waits for one to end), and
 * COALESCING (a debounced or throttled key's run whose window is open: each submission of the
 * key replaces its params and may move its due time; an engine claims it once due).
 * The legal moves are data in `run-state.ts`.
 */
export type RunState = (typeof RUN_STATES)[number];

/**
 * Where a withdrawn prepared fire stands (runs.withdrawal; trigger/prepared-fires.ts). One that
 * an engine may have sent ahead (DISPATCHED or ACCEPTED when withdrawn, or with a sent mark kept)
 * is UNSETTLED until its executor's word says whether it started: its instant is not given back before that, since the executor may start it at the
 * instant if the abort comes late, and a fire planned again would be the instant's second. Then,
 * once: NOT_STARTED (dropped before it started: the instant is given back, rewindForWithdrawn,
 * and runs late rather than twice), STARTED (it ran as prepared: the instant is not planned
 * again), or UNKNOWN (no word by its timeout: taken as STARTED — never twice beats late).
 */
export const WITHDRAWAL_STATES = ['UNSETTLED', 'NOT_STARTED', 'STARTED', 'UNKNOWN'] as const;
export type WithdrawalState = (typeof WITHDRAWAL_STATES)[number];

/**
 * How an earlier attempt of a run ended (run_attempts.state) besides FAILED and TIMED_OUT:
 * HANDED_BACK — a run sent ahead of its instant that its executor provably never started (it had
 * lost contact with the engines: docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead and contact"). It
 * was dispatched again as the next attempt, which the task's retries do not count it against.
 */
export const HANDED_BACK = 'HANDED_BACK';
/** How an attempt of a run stands or ended: a run state, or HANDED_BACK. */
export type AttemptState = RunState | typeof HANDED_BACK;

export const EXECUTOR_STATES = ['UP', 'DOWN'] as const;
export type ExecutorState = (typeof EXECUTOR_STATES)[number];

/**
 * How engines speak to an executor: `baton` — the executor protocol (docs/EXECUTOR-PROTOCOL.md);
 * `xxl-job` — an unchanged xxl-job-core executor, registered through its tenant's XXL-JOB admin API.
 */
export const EXECUTOR_WIRES = ['baton', 'xxl-job'] as const;
export type ExecutorWire = (typeof EXECUTOR_WIRES)[number];
