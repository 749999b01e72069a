import { SEVERITIES, type AlarmType, type Severity, type WebhookEventType } from '../types';

/** A webhook channel's routing rule. */
export interface WebhookRule {
  /** Alarm types sent (and AUDIT: the audit log's changes); null: every alarm type. */
  alarmTypes: readonly WebhookEventType[] | null;
  /** The least severe alarm sent. */
  minSeverity: Severity;
}

/** Whether an alarm goes to a channel: its type is one the channel takes, and it is at least as severe as the channel asks. */
export function routesTo(rule: WebhookRule, alarm: { type: AlarmType; severity: Severity }): boolean {
  if (rule.alarmTypes !== null && !rule.alarmTypes.includes(alarm.type)) return false;
  return SEVERITIES.indexOf(alarm.severity) >= SEVERITIES.indexOf(rule.minSeverity);
}

/** A delivery that has failed for this long since it was queued is given up (its last error kept). */
export const WEBHOOK_GIVE_UP_MS = 24 * 3600_000;
/** One POST to an endpoint (a delivery, or the console's test) ends after this long, answered or not. */
export const WEBHOOK_TIMEOUT_MS = 5000;

/** A webhook channel's name (display text, displayNameProblem): the webhook_channels.name column's varchar(100). */
export const WEBHOOK_NAME_MAX_LENGTH = 100;
/** Most of an endpoint's answer read (only its status matters): a longer one fails the POST. */
export const WEBHOOK_MAX_ANSWER_BYTES = 64 * 1024;
/** Longest wait between two tries of one delivery. */
export const WEBHOOK_MAX_RETRY_MS = 5 * 60_000;

/** The wait before try `attempts + 1` after `attempts` failed tries: 1 s, 2 s, 4 s, … up to 5 minutes. */
export function webhookRetryDelay(attempts: number): number {
  return Math.min(WEBHOOK_MAX_RETRY_MS, 1000 * 2 ** Math.max(0, attempts - 1));
}
