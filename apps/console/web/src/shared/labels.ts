import { ERROR_CODES } from '@baton/protocol/error-body';
import { APPROVAL_OUTCOMES, CONCURRENCY_POLICIES, DEPENDENCY_CONDITIONS, EXECUTOR_STATES, FAN_OUT_FAIL_WHEN, FAN_OUT_MODES, HANDED_BACK, MISFIRE_POLICIES, REPEATED_TIME_POLICIES, ROLES, RUN_CAUSES, RUN_STATES, SEVERITIES, SKIPPED_TIME_POLICIES, START_LATE_POLICIES, TRIGGER_KINDS, WEBHOOK_EVENT_TYPES, KEY_ON_LIMIT, THROTTLE_KEEP } from '@baton/domain/types';
import { t } from './i18n/i18n';

/**
 * Every code of the domain the console shows to people (a run's state, an alarm's type, a
 * role…): in English the code itself, in Chinese its translation, keyed by the code. The
 * catalogue spec requires a translation for each.
 */
export const SHOWN_CODES: readonly string[] = [
  ...RUN_STATES,
  HANDED_BACK, // how an earlier attempt ended: sent ahead, never started by its executor
  // The alarm types, and AUDIT (a webhook channel's event type).
  ...WEBHOOK_EVENT_TYPES,
  ...SEVERITIES,
  ...MISFIRE_POLICIES,
  ...REPEATED_TIME_POLICIES,
  ...SKIPPED_TIME_POLICIES,
  ...CONCURRENCY_POLICIES,
  ...START_LATE_POLICIES,
  ...KEY_ON_LIMIT,
  ...THROTTLE_KEEP,
  ...TRIGGER_KINDS,
  ...FAN_OUT_MODES,
  ...FAN_OUT_FAIL_WHEN,
  ...DEPENDENCY_CONDITIONS,
  ...ROLES,
  ...EXECUTOR_STATES,
  ...RUN_CAUSES,
  ...APPROVAL_OUTCOMES,
  ...ERROR_CODES,
];

/** A domain code as this viewer reads it (unknown codes as they are). */
export function codeLabel(code: string): string {
  return t(code);
}
