import { describe, expect, it } from 'vitest';
import { isExcluded } from './is-excluded';
import { isLocalDate, MAX_CALENDAR_DATES, validateCalendar } from './validate-calendar';

const berlinXmas = { name: 'holidays', timeZone: 'Europe/Berlin', dates: ['2026-12-25', '2026-12-26'] };

describe('isExcluded', () => {
  it('reads the date in the calendar zone, not in UTC', () => {
    expect(isExcluded(berlinXmas, Date.parse('2026-12-24T22:59:59.999Z'))).toBe(false); // 23:59:59 on the 24th
    expect(isExcluded(berlinXmas, Date.parse('2026-12-24T23:00:00Z'))).toBe(true); // 00:00 on the 25th
    expect(isExcluded(berlinXmas, Date.parse('2026-12-26T22:59:59Z'))).toBe(true);
    expect(isExcluded(berlinXmas, Date.parse('2026-12-26T23:00:00Z'))).toBe(false); // the 27th
  });

  it('excludes nothing without a calendar or with an empty one', () => {
    expect(isExcluded(null, Date.parse('2026-12-25T12:00:00Z'))).toBe(false);
    expect(isExcluded({ ...berlinXmas, dates: [] }, Date.parse('2026-12-25T12:00:00Z'))).toBe(false);
  });
});

describe('validateCalendar', () => {
  it('accepts a good calendar', () => {
    expect(validateCalendar(berlinXmas)).toEqual([]);
    expect(validateCalendar({ ...berlinXmas, dates: [] })).toEqual([]);
    expect(validateCalendar({ ...berlinXmas, dates: ['2028-02-29'] })).toEqual([]);
  });

  it('refuses dates that are not real YYYY-MM-DD dates, naming each by index', () => {
    const errors = validateCalendar({ ...berlinXmas, dates: ['2026-01-01', '2026-02-30', '2026-2-3', 20260101, '2027-02-29', '2026-13-01'] });
    expect(errors.map((e) => e.field)).toEqual(['dates[1]', 'dates[2]', 'dates[3]', 'dates[4]', 'dates[5]']);
  });

  it('refuses an unknown zone, a bad name, a non-array and too many dates', () => {
    expect(validateCalendar({ ...berlinXmas, timeZone: 'Europe/Atlantis' })).toEqual([
      { field: 'timeZone', reason: expect.stringContaining('IANA') },
    ]);
    expect(validateCalendar({ ...berlinXmas, name: 'bad name' }).map((e) => e.field)).toEqual(['name']);
    expect(validateCalendar({ ...berlinXmas, name: '' }).map((e) => e.field)).toEqual(['name']);
    expect(validateCalendar({ ...berlinXmas, dates: '2026-12-25' }).map((e) => e.field)).toEqual(['dates']);
    expect(validateCalendar({ ...berlinXmas, dates: Array(MAX_CALENDAR_DATES + 1).fill('2026-01-01') }).map((e) => e.field)).toEqual(['dates']);
    expect(validateCalendar(null)).toEqual([{ field: '', reason: 'must be an object' }]);
  });

  it('isLocalDate checks shape and reality', () => {
    expect(isLocalDate('2024-02-29')).toBe(true);
    expect(isLocalDate('2023-02-29')).toBe(false);
    expect(isLocalDate('2024-02-29T00:00')).toBe(false);
  });
});
