import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, isValidTimeZone, localDate, startOfNextLocalDay } from './time-zone';
import { UnknownTimeZoneError } from './unknown-time-zone-error';

describe('time zones', () => {
  it('knows IANA zones and refuses offsets, blanks and padded names', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    for (const z of ['Mars/Base', '+01:00', '', ' UTC', 'UTC ', 7, null, undefined]) expect(isValidTimeZone(z)).toBe(false);
  });

  it('canonicalises the spelling of a zone', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Mars/Base')).toBeNull();
  });

  it('reads the local date of an instant in a zone', () => {
    const t = Date.parse('2026-12-24T23:30:00Z');
    expect(localDate(t, 'UTC')).toBe('2026-12-24');
    expect(localDate(t, 'Europe/Berlin')).toBe('2026-12-25');
    expect(localDate(t, 'America/New_York')).toBe('2026-12-24');
  });

  it('finds the start of the next local day, also on DST days', () => {
    // 29 March 2026 in Berlin is 23 hours long; the next day starts at 22:00 UTC (00:00 CEST).
    expect(startOfNextLocalDay(Date.parse('2026-03-29T10:00:00Z'), 'Europe/Berlin')).toBe(Date.parse('2026-03-29T22:00:00Z'));
    expect(startOfNextLocalDay(Date.parse('2026-10-25T10:00:00Z'), 'Europe/Berlin')).toBe(Date.parse('2026-10-25T23:00:00Z'));
  });

  it('throws a coded error for an unknown zone instead of computing nonsense', () => {
    expect(() => localDate(0, 'Mars/Base')).toThrow(UnknownTimeZoneError);
    try {
      localDate(0, 'Mars/Base');
    } catch (e) {
      expect((e as UnknownTimeZoneError).code).toBe('UNKNOWN_TIME_ZONE');
    }
  });
});
