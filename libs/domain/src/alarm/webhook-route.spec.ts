import { describe, expect, it } from 'vitest';
import { routesTo, webhookRetryDelay, WEBHOOK_MAX_RETRY_MS } from './webhook-route';

describe('webhook routing', () => {
  it('sends the types a channel takes, at or above its severity', () => {
    const rule = { alarmTypes: ['FAILED', 'TIMEOUT'] as const, minSeverity: 'WARNING' as const };
    expect(routesTo({ ...rule, alarmTypes: [...rule.alarmTypes] }, { type: 'FAILED', severity: 'CRITICAL' })).toBe(true);
    expect(routesTo({ ...rule, alarmTypes: [...rule.alarmTypes] }, { type: 'TIMEOUT', severity: 'WARNING' })).toBe(true);
    expect(routesTo({ ...rule, alarmTypes: [...rule.alarmTypes] }, { type: 'TIMEOUT', severity: 'INFO' })).toBe(false);
    expect(routesTo({ ...rule, alarmTypes: [...rule.alarmTypes] }, { type: 'START_LATE', severity: 'CRITICAL' })).toBe(false);
    expect(routesTo({ alarmTypes: null, minSeverity: 'INFO' }, { type: 'BUSINESS', severity: 'INFO' })).toBe(true);
  });

  it('retries after 1 s, 2 s, 4 s … at most 5 minutes apart', () => {
    expect([1, 2, 3, 4].map(webhookRetryDelay)).toEqual([1000, 2000, 4000, 8000]);
    expect(webhookRetryDelay(30)).toBe(WEBHOOK_MAX_RETRY_MS);
  });
});
