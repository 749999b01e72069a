import { describe, expect, it } from 'vitest';
import { MAX_CRON_EXPRESSION_LENGTH, nextCronTime, parseCron } from './cron';

describe('parseCron — accepted', () => {
  it.each([
    ['five fields (second 0)', '*/5 * * * *'],
    ['six fields (seconds first)', '*/10 * * * * *'],
    ['names and AND-modifier', '0 0 12 * JAN-MAR +MON'],
    ['last day of month', '0 0 0 L * *'],
    ['nth weekday', '0 0 9 * * FRI#2'],
    ['? as an alias of *', '0 0 12 ? * MON'],
    ['nickname', '@daily'],
  ])('%s: %s', (_label, expression) => {
    expect(parseCron(expression, 'Europe/Berlin')).toEqual({ ok: true, expression, timeZone: 'Europe/Berlin' });
  });

  it('trims the expression and returns the canonical zone spelling', () => {
    expect(parseCron('  0 0 * * *  ', 'europe/berlin')).toEqual({ ok: true, expression: '0 0 * * *', timeZone: 'Europe/Berlin' });
  });

  it('accepts UTC', () => {
    expect(parseCron('0 0 * * *', 'UTC')).toMatchObject({ ok: true, timeZone: 'UTC' });
  });
});

describe('parseCron — refused, with a precise reason', () => {
  it.each([
    ['seven fields (year)', '0 0 0 1 1 * 2030', /^invalid cron expression: it has 7 fields; give 6 \(second minute hour day-of-month month day-of-week\) or 5 \(no seconds\); no year field$/],
    ['four fields', '0 0 * *', /^invalid cron expression: it has 4 fields; give 6 .* or 5 \(no seconds\)/],
    ['second out of range', '61 * * * * *', /second: 61/],
    ['hour out of range', '0 0 24 * * *', /hour: 24/],
    ['garbage', 'every day at noon', /invalid cron expression/],
    ['illegal character', '0 0 12 * * MON!', /illegal characters/],
    ['numeric-prefix step', '5/15 * * * *', /stepping/],
    ['@reboot', '@reboot', /@reboot/],
  ])('%s: %s', (_label, expression, reason) => {
    const result = parseCron(expression, 'UTC');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toBe('INVALID_EXPRESSION');
      expect(result.reason).toMatch(reason);
      expect(result.reason).not.toMatch(/^CronPattern/);
    }
  });

  it.each([[''], ['   '], [undefined], [42]])('a missing expression (%j)', (expression) => {
    expect(parseCron(expression, 'UTC')).toEqual({ ok: false, error: 'INVALID_EXPRESSION', reason: 'cron expression is required' });
  });

  it('an over-long expression', () => {
    const long = `0 0 ${Array.from({ length: 80 }, (_, i) => i % 24).join(',')} * *`;
    expect(long.length).toBeGreaterThan(MAX_CRON_EXPRESSION_LENGTH);
    expect(parseCron(long, 'UTC')).toMatchObject({ ok: false, error: 'INVALID_EXPRESSION' });
  });

  it.each([['Mars/Olympus_Mons'], ['+01:00'], [''], ['Europe/Berlin '], [null]])('an unknown time zone (%j)', (zone) => {
    const result = parseCron('0 0 * * *', zone);
    expect(result).toMatchObject({ ok: false, error: 'UNKNOWN_TIME_ZONE' });
    if (!result.ok) expect(result.reason).toContain(String(zone));
  });

  it('an expression that matches no date (30 February)', () => {
    expect(parseCron('0 0 30 2 *', 'UTC')).toMatchObject({ ok: false, error: 'NEVER_FIRES' });
  });

  it('29 February is rare but real, so it is accepted', () => {
    expect(parseCron('0 0 29 2 *', 'UTC')).toMatchObject({ ok: true });
  });
});

describe('nextCronTime', () => {
  it('is deterministic: the same question gets the same answer (memoised jobs keep no state)', () => {
    const after = Date.parse('2026-01-01T00:00:00Z');
    const a = nextCronTime('0 0 * * * *', 'UTC', after);
    nextCronTime('0 0 * * * *', 'UTC', after + 10 * 3_600_000);
    expect(nextCronTime('0 0 * * * *', 'UTC', after)).toBe(a);
    expect(a).toBe(after + 3_600_000);
  });

  it('returns null for an expression that never fires', () => {
    expect(nextCronTime('0 0 30 2 *', 'UTC', 0)).toBeNull();
  });
});
