/**
 * The shapes of the console API (see /api/docs) used by the web console: the server's own
 * definitions, not copies. Enums come from the domain's types (a module with no imports, so only
 * the constants used are bundled); the answers from the API's plain types (type-only).
 */

export {
  ALARM_TYPES,
  APPROVAL_OUTCOMES,
  APPROVER_ROLES,
  CONCURRENCY_POLICIES,
  DEPENDENCY_CONDITIONS,
  FAN_OUT_FAIL_WHEN,
  FAN_OUT_MODES,
  KEY_ON_LIMIT,
  THROTTLE_KEEP,
  MISFIRE_POLICIES,
  REPEATED_TIME_POLICIES,
  SKIPPED_TIME_POLICIES,
  START_LATE_POLICIES,
  RUN_STATES,
  SEVERITIES,
  TRIGGER_KINDS,
  WEBHOOK_EVENT_TYPES,
  type DstMark,
  type JsonValue,
  type RunState,
  type TriggerKind,
} from '@baton/domain/types';
export type * from '@baton/console-api';
export { ACTIVE_STATES, isTerminal } from '@baton/domain/run/run-state';
