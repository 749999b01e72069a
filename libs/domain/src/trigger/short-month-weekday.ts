import { Cron } from 'croner';
import { CRONER_OPTIONS } from './croner-options';

/**
 * Quartz's `nW` (the weekday nearest day n) in a month shorter than n, which croner never fires:
 * Quartz counts on past the month's end (31 April is 1 May); when that day is a Saturday, its
 * nearest weekday, the Friday before, is the month's last day and fires; else nothing fires that
 * month (CronExpression.getTimeAfter, 2.3.2, measured in short-month-weekday.spec.ts). So `31W`
 * fires on a 30-day month's 30th when it is a Friday, `30W` on 29 February and `29W` on
 * 28 February of a common year when a Friday. Not in February when the cron fires in January too:
 * from January's fire Quartz sets day n in February, which rolls over into March, and it skips
 * February. A second job matches these days; null when the expression has none (day-of-week
 * given: Quartz refuses both day fields, and for Baton they are its own OR).
 */
export function shortMonthWeekday(expression: string): Cron | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 5) fields.unshift('0');
  if (fields.length !== 6) return null;
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = fields;
  const n = /^(29|30|31)W$/i.exec(dayOfMonth)?.[1];
  if (n === undefined || (dayOfWeek !== '*' && dayOfWeek !== '?')) return null;
  const inMonths = (m: number) => new Cron(`0 0 0 1 ${month} *`, CRONER_OPTIONS).match(new Date(Date.UTC(2001, m - 1, 1)));
  const months = n === '31' ? [4, 6, 9, 11].filter(inMonths) : inMonths(1) ? [] : [2].filter(inMonths);
  // Day n − 1 of these months is their last whenever it exists (29 February only in leap
  // years); a leap year's 28 February a Friday is 29W's own fire, 29 February being a Saturday.
  return months.length === 0 ? null : new Cron(`${second} ${minute} ${hour} ${Number(n) - 1} ${months.join(',')} +5`, CRONER_OPTIONS);
}
