import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCalendar } from './quartz-calendar';

// A HolidayCalendar in Europe/Berlin written by Quartz 2.3.2, excluding 2027-03-24, 2027-03-25 and 2027-04-02.
const HOLIDAYS = readFileSync(join(__dirname, 'fixtures/holiday-calendar.ser'));
// Written by Quartz 2.3.2: an AnnualCalendar excluding 25 December (Europe/Berlin), and a HolidayCalendar (2027-04-05) on it as its base calendar.
const ANNUAL = readFileSync(join(__dirname, 'fixtures/annual-calendar.ser'));
const HOLIDAYS_ON_ANNUAL = readFileSync(join(__dirname, 'fixtures/holiday-on-annual-calendar.ser'));

describe('importCalendar', () => {
  it("reads a HolidayCalendar's dates as local dates in its time zone", () => {
    expect(importCalendar(HOLIDAYS, 'UTC')).toEqual({ ok: true, timeZone: 'Europe/Berlin', dates: ['2027-03-24', '2027-03-25', '2027-04-02'] });
  });

  it('another kind of calendar is refused, naming it', () => {
    // The same stream, its class renamed to another of Quartz's (names of equal length keep the stream valid).
    const monthly = Buffer.from(HOLIDAYS.toString('latin1').replace('calendar.HolidayCalendar', 'calendar.MonthlyCalendar'), 'latin1');
    expect(importCalendar(monthly, 'UTC')).toEqual({ ok: false, reason: "is a MonthlyCalendar: Baton calendars exclude whole dates, as Quartz's HolidayCalendar does" });
    expect(importCalendar(ANNUAL, 'UTC')).toEqual({ ok: false, reason: "is an AnnualCalendar: Baton calendars exclude whole dates, as Quartz's HolidayCalendar does" });
    expect(importCalendar(HOLIDAYS_ON_ANNUAL, 'UTC')).toEqual({ ok: false, reason: "has an AnnualCalendar as its base calendar: Baton calendars exclude whole dates, as Quartz's HolidayCalendar does" });
  });

  it('an unreadable stream is refused with the reason', () => {
    expect(importCalendar(Buffer.from('not java'), 'UTC')).toEqual({ ok: false, reason: 'cannot be read: its serialized form is corrupt or of a kind not read (not a Java serialization stream (no AC ED 00 05 header))' });
  });
});
