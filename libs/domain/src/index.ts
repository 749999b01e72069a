export * from './types';

export { isValidTimeZone, canonicalTimeZone, localDate, startOfNextLocalDay } from './time/time-zone';
export { UnknownTimeZoneError } from './time/unknown-time-zone-error';
export type { FieldError } from './validation/field-error';
export { INSTANT_REASON, isMillis, MAX_INSTANT_MS, MAX_INT32, MAX_INTERVAL_MS } from './validation/field-error';
export { displayNameProblem, NAME_PATTERN, NAME_MAX_LENGTH, nameProblem } from './validation/names';

export { isExcluded, exclusionTest } from './calendar/is-excluded';
export { validateCalendar, isLocalDate, MAX_CALENDAR_DATES } from './calendar/validate-calendar';

export { parseCron, MAX_CRON_EXPRESSION_LENGTH, CRON_FIELDS_RULE } from './trigger/cron';
export type { ParsedCron, CronError } from './trigger/cron';
export { DEFAULT_CRON_DST, canonicalCronTrigger, cronDstOf } from './trigger/cron-dst';
export type { CronDst } from './trigger/cron-dst';
export { dstMarks } from './trigger/dst-marks';
export {
  nextFireTimes,
  nextFireTime,
  firstFireTime,
  nextFixedDelayFire,
  remainingFires,
  MAX_EXCLUDED_SKIPS,
} from './trigger/next-fire';
export { MissingAnchorError } from './trigger/missing-anchor-error';
export { planFires, DEFAULT_MAX_SCAN } from './trigger/misfire';
export type { FirePlan, FirePlanInput, PlannedFire, PlannedFireKind } from './trigger/misfire';

export {
  RUN_TRANSITIONS,
  TERMINAL_STATES,
  ACTIVE_STATES,
  EXECUTING_STATES,
  KEY_GOING_STATES,
  canTransition,
  assertTransition,
  isTerminal,
} from './run/run-state';
export { IllegalTransitionError } from './run/illegal-transition-error';
export { retryDecision, backoffDelay } from './run/retry';
export { RetryBudget, RETRY_BUDGET_WINDOW_MS } from './run/retry-budget';
export type { RetryBudgetPolicy } from './run/retry-budget';
export { claimLeaseUntil, leaseNeedsRenewal, leaseRenewalPeriod, renewedLeaseUntil } from './run/lease';
export { attemptTimeline, TIMELINE_STEPS } from './run/timeline';
export type { AttemptTimes, TimelineClock, TimelineEntry, TimelineStep } from './run/timeline';
export type { RetryDecision } from './run/retry';

export { findCycle, assertNoCycle } from './dag/find-cycle';
export { CycleError } from './dag/cycle-error';
export { childrenToFire, childStatus, satisfiesCondition } from './dag/children-to-fire';
export type { ParentOutcome, ChildStatus } from './dag/children-to-fire';
export {
  APPROVAL_GATE_DEFAULTS,
  MAX_APPROVAL_COMMENT,
  MAX_APPROVAL_TIMEOUT_MS,
  MAX_APPROVAL_USERS,
  MIN_APPROVAL_TIMEOUT_MS,
  REJECTION_APPLIED_WITHIN_MS,
  commentProblem,
  describeApprovers,
  lateDecisionProblem,
  mergeGates,
  readApprovalGate,
  refusalToDecide,
} from './dag/approval-gate';
export type { Decider } from './dag/approval-gate';

export {
  validateTask,
  MIN_INTERVAL_MS,
  MIN_TIMEOUT_MS,
  PRIORITY_MIN,
  PRIORITY_MAX,
  MAX_RETRY_ATTEMPTS,
  MAX_HANDLER_LENGTH,
  MAX_PAUSE_AFTER_FAILURES,
  MAX_SHARDS,
  MAX_IMPORTED_FROM_LENGTH,
} from './task/validate-task';
export { taskDefaults, withTaskDefaults } from './task/task-defaults';
export type { TaskInput, DefaultedTaskFields } from './task/task-defaults';
export { diffFields } from './task/task-diff';
export type { FieldChange } from './task/task-diff';
export { paramsProblem, jsonProblem, utf8ByteLength, MAX_JSON_DEPTH } from './task/json-params';
export * from './clock';
export * from './clock-offset';

export { normalizeExecutorNetworks, validateExecutorNetworks, MAX_EXECUTOR_NETWORKS } from './outbound/executor-networks';
export type { ExecutorNetworks } from './outbound/executor-networks';
export { checkExecutorUrl, checkOutboundAddress, checkOutboundUrl, outboundCheck } from './outbound/outbound-policy';
export type { OutboundPurpose, UrlVerdict } from './outbound/outbound-policy';
export { clusterAddressOfUrl, clusterAddressRefusal, isClusterAddress, CLUSTER_ADDRESS_REFUSED } from './outbound/cluster-addresses';
export type { ClusterAddress, ClusterAddresses } from './outbound/cluster-addresses';

export { EARLY_START_TOLERANCE_MS, firstAttemptLateness, retryWait, startedEarlyBy } from './stats/lateness';
export type { TimedRun } from './stats/lateness';
export {
  bucketOf,
  bucketUpper,
  decodeHistogram,
  encodeHistogram,
  estimatePercentile,
  histogramCount,
  LAST_BUCKET,
  PERCENTILE_ERROR,
} from './stats/histogram';
export type { Histogram } from './stats/histogram';
export {
  ALL_TASKS,
  HOUR_MS,
  MINUTE_MS,
  addRun,
  bucketStart,
  emptyCell,
  estimate,
  mergeCell,
  rollupRuns,
  successRate,
} from './stats/run-rollup';
export type { DistributionEstimate, EndedRun, EndedState, RollupCell } from './stats/run-rollup';

export { MAX_PURGE_PERIOD_MS, MIN_RETENTION_MS, mayPurge, purgePeriodMs, taskRetention, tenantRetention, validateRetention } from './history/retention';
export type { EffectiveRetention, PurgeCheck, RetentionCeiling, RetentionLevel } from './history/retention';
export { keyRolesBeyond, mayHoldKey } from './access/api-key-owner';
export type { KeyOwner } from './access/api-key-owner';
export { accessForGroups, parseGroupMap } from './access/sso-group-map';
export { API_KEY_PRINCIPAL_PREFIX, MAX_API_KEY_NAME_LENGTH, MAX_USERNAME_LENGTH, principalNameProblem } from './access/principal-names';
export type { GroupGrant, SsoAccess } from './access/sso-group-map';
export { BACKFILL_SLICE, BACKFILL_TOO_MANY, backfillFires, backfillRange, FIRES_PER_SLICE, MAX_BACKFILL_FIRES } from './trigger/backfill';
export { EDIT_REACHES_FIRES_AFTER_MS, PREPARED_FIRE_FIELDS, preparedFiresWithdrawnAfter, rewindForWithdrawn, settledByAbortAnswer, settledByCallback, settledBySweep, type WithdrawalSettled } from './trigger/prepared-fires';
export type { FireCursor } from './trigger/prepared-fires';
export { MAX_PARENT_RESULTS_BYTES, parentResultsJson, parseParentResults } from './dag/parent-results';
export { routesTo, webhookRetryDelay, WEBHOOK_GIVE_UP_MS, WEBHOOK_MAX_ANSWER_BYTES, WEBHOOK_MAX_RETRY_MS, WEBHOOK_NAME_MAX_LENGTH, WEBHOOK_TIMEOUT_MS } from './alarm/webhook-route';
export type { WebhookRule } from './alarm/webhook-route';
export { planShards } from './fan-out/plan-shards';
export type { FanOutPlan, ShardPlan } from './fan-out/plan-shards';
export { fanOutOutcome } from './fan-out/fan-out-outcome';
export type { FanOutOutcome, ShardEnd } from './fan-out/fan-out-outcome';
export { backlogAlarmStep, byOldestDue, executorLoad, loadCount, subtractCount, LOAD_COUNT_CAP } from './load/tenant-load';
export type { BacklogAlarmStep, ExecutorCapacity, LoadCount, TenantLoad } from './load/tenant-load';
export { eventMatches, eventRunParams, isExistsTest } from './event/event-match';
export { JSON_PATH_PATTERN, JSON_PATH_RULE, MAX_JSON_PATH_LENGTH, jsonPathProblem, readJsonPath } from './event/json-path';
export { EVENT_NAME_PATTERN, EVENT_NAME_RULE, MAX_EVENT_FILTER_ENTRIES, MAX_EVENT_NAME_LENGTH, MAX_EVENT_PAYLOAD_BYTES, eventNameProblem, eventTriggerProblems } from './event/validate-event';

export { redact, redactChange, isSecretName, shownTextContains, REDACTED, SECRET_NAMES } from './redaction/redact';
export { redactParamsSchema } from './redaction/redact-schema';
export { redactUrlPasswords } from './redaction/redact-url';
export { runKeyOf, MAX_RUN_KEY_LENGTH } from './key/run-key';
export { keyConcurrencyProblems, keyRateLimitProblems, MAX_KEY_LIMIT, MAX_KEY_RATE, MIN_KEY_RATE, MAX_KEY_GROUP_LENGTH } from './key/validate-keys';
export { keyScope, keyLabel, scopeTask, MAX_KEY_SCOPE_LENGTH } from './key/key-scope';
export { admitKeyed, releaseKeyed } from './key/key-admission';
export type { KeyAdmission } from './key/key-admission';
export { takeKeyTokens } from './key/key-bucket';
export type { KeyBucket } from './key/key-bucket';
export { keyAtRest } from './window/key-rest';
export type { StoredKeyState } from './window/key-rest';

export { debounceWindow } from './window/debounce-window';
export type { DebounceWindow } from './window/debounce-window';
export { throttleDecision } from './window/throttle-window';
export type { ThrottleAction, ThrottlePeriod } from './window/throttle-window';
export { debounceProblems, throttleProblems, windowsProblems, defaultDebounceWait, MIN_WINDOW_MS, MAX_WINDOW_MS, MAX_DEBOUNCE_WAIT_MS, MAX_THROTTLE_LIMIT } from './window/validate-windows';
