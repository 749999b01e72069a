import { localDate } from '@baton/domain';
import { isJavaObject, readJavaObject, type JavaObject, type JavaValue } from './java-serialization';
import { withArticle } from '../import/with-article';

/** A Quartz calendar as a Baton calendar (dates excluded in a time zone), or why it cannot be one (said of the calendar: `its calendar "x" <reason>`). */
export type ImportedCalendar = { ok: true; timeZone: string; dates: string[] } | { ok: false; reason: string };

const HOLIDAY = 'org.quartz.impl.calendar.HolidayCalendar';

/**
 * A serialized Quartz calendar (QRTZ_CALENDARS.CALENDAR). Baton's calendars are lists of
 * excluded dates, which is exactly Quartz's HolidayCalendar: each of its dates (the start of
 * the excluded day in the calendar's time zone) becomes that local date. A chain of
 * HolidayCalendars (base calendars) in one time zone is their union. Quartz's other kinds
 * exclude times of day, weekdays or yearly days (Daily, Weekly, Monthly, Annual, Cron
 * calendars): they have no Baton form and are listed with the reason. A calendar without a time
 * zone is read in `defaultTimeZone` (Quartz uses the JVM's).
 */
export function importCalendar(blob: Buffer, defaultTimeZone: string): ImportedCalendar {
  let value: JavaValue;
  try {
    value = readJavaObject(blob);
  } catch (error) {
    return { ok: false, reason: `cannot be read: its serialized form is corrupt or of a kind not read (${(error as Error).message})` };
  }
  let timeZone: string | null = null;
  const dates = new Set<string>();
  for (let calendar = value; calendar !== null; calendar = (calendar as JavaObject).fields.baseCalendar ?? null) {
    if (!isJavaObject(calendar)) return { ok: false, reason: 'is not a serialized calendar object' };
    if (calendar.className !== HOLIDAY) {
      const kind = withArticle(calendar.className.replace(/^.*\./, ''));
      return { ok: false, reason: `${calendar === value ? `is ${kind}` : `has ${kind} as its base calendar`}: Baton calendars exclude whole dates, as Quartz's HolidayCalendar does` };
    }
    const zone = zoneId(calendar.fields.timeZone) ?? defaultTimeZone;
    if (timeZone !== null && zone !== timeZone) return { ok: false, reason: `has base calendars in different time zones (${timeZone}, ${zone})` };
    timeZone = zone;
    for (const instant of treeSetDates(calendar.fields.dates)) dates.add(localDate(instant, zone));
  }
  return { ok: true, timeZone: timeZone ?? defaultTimeZone, dates: [...dates].sort() };
}

/** A java.util.TimeZone (sun.util.calendar.ZoneInfo) keeps its id in TimeZone's field ID. */
function zoneId(zone: JavaValue | undefined): string | null {
  return isJavaObject(zone) && typeof zone.fields.ID === 'string' ? zone.fields.ID : null;
}

/** A TreeSet<Date>: its writeObject writes the comparator, the size, then each element; a Date's writeObject writes its epoch ms as block data. */
function treeSetDates(set: JavaValue | undefined): number[] {
  if (!isJavaObject(set)) return [];
  return (set.annotations['java.util.TreeSet'] ?? []).flatMap((item) => {
    if (!isJavaObject(item) || item.className !== 'java.util.Date') return [];
    const written = item.annotations['java.util.Date']?.[0];
    return Buffer.isBuffer(written) && written.length === 8 ? [Number(written.readBigInt64BE(0))] : [];
  });
}
