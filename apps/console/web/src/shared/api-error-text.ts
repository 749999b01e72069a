import type { ApiErrorBody } from './api';
import { i18n, t } from './i18n/i18n';
import { codeLabel } from './labels';

/**
 * The API's field names as the console's forms label them, for errors that name a field. The
 * API gives its reasons in English with a stable code; the console translates what it knows:
 * the code and the field, never guessing at the reason's words.
 */
const FIELD_LABELS: Record<string, () => string> = {
  name: () => t('Name'),
  group: () => t('Group'),
  executorApp: () => t('Executor app'),
  handler: () => t('Handler'),
  params: () => t('Params (JSON)'),
  trigger: () => t('Trigger'),
  'trigger.expression': () => t('Cron expression'),
  'trigger.timeZone': () => t('Time zone'),
  'trigger.intervalMs': () => t('Interval'),
  'trigger.delayMs': () => t('Delay'),
  'trigger.at': () => t('At'),
  startAt: () => t('Start at'),
  endAt: () => t('End at'),
  maxFires: () => t('Maximum fires'),
  calendarName: () => t('Exclusion calendar'),
  misfirePolicy: () => t('Misfire policy'),
  misfireThresholdMs: () => t('Misfire threshold'),
  concurrencyPolicy: () => t('Concurrency policy'),
  priority: () => t('Priority'),
  timeoutMs: () => t('Timeout'),
  startDeadlineMs: () => t('Start deadline'),
  onStartLate: () => t('A run not started by its start deadline'),
  'retry.maxAttempts': () => t('Attempts'),
  'retry.backoffBaseMs': () => t('Backoff base'),
  'retry.backoffMaxMs': () => t('Backoff max'),
  'retry.jitter': () => t('Jitter'),
  'fanOut.shards': () => t('Shards'),
  username: () => t('Username'),
  password: () => t('Password'),
  tenant: () => t('Tenant'),
  url: () => t('URL'),
  from: () => t('From'),
  to: () => t('To'),
};

/** A field of an error as this viewer reads it: its form label when the console knows it, else the API's path. */
export function fieldLabel(field: string): string {
  return FIELD_LABELS[field]?.() ?? field;
}

/**
 * The text of an API error for people: the API's own message in English; in another language
 * the code's translation, then each field by its label with the API's reason.
 */
export function apiErrorText(body: ApiErrorBody): string {
  if (i18n.language === 'en') return body.message;
  const title = codeLabel(body.code);
  if (body.errors?.length) return `${title}：${body.errors.map((e) => `${fieldLabel(e.field)}：${e.reason}`).join('；')}`;
  return body.message ? `${title}（${body.message}）` : title;
}
