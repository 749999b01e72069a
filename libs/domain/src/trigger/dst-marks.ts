import { IANAZone } from 'luxon';
import type { DstMark, Millis, Trigger } from '../types';
import { compileCron, nextCronTime } from './cron';
import { cronDstOf } from './cron-dst';
import { locateWallTime, wallTimeOf } from './wall-time';

/**
 * The mark of each of a cron trigger's consecutive fires (`fires`, the first one the first
 * after `after`), or null where daylight saving played no part. A skipped time is told by the
 * instant FIRE_LATE fires it: the first after its gap. That instant may be one of the cron's own
 * times too (02:00 after London's 01:00–01:59 for an hourly cron), where both policies fire once;
 * the mark still says what became of the skipped time.
 */
export function dstMarks(trigger: Extract<Trigger, { kind: 'CRON' }>, after: Millis, fires: Millis[]): (DstMark | null)[] {
  const dst = cronDstOf(trigger);
  const zone = IANAZone.create(trigger.timeZone);
  return fires.map((t, i) => {
    const previous = i === 0 ? after : fires[i - 1];
    // SKIP's fires are FIRE_LATE's less the late ones: FIRE_LATE's first after the previous fire
    // is a late one if any skipped time lies between the two fires.
    const late = dst.skippedTime === 'FIRE_LATE' ? t : nextCronTime(trigger.expression, trigger.timeZone, previous, { ...dst, skippedTime: 'FIRE_LATE' });
    if (late !== null && late <= t && firesSkippedTimes(trigger.expression, zone, late)) return dst.skippedTime === 'FIRE_LATE' ? 'FIRED_LATE' : 'AFTER_SKIPPED';
    const wall = locateWallTime(zone, wallTimeOf(zone, t));
    if (wall.kind !== 'REPEATED') return null;
    return wall.earlier === t ? 'REPEATED_EARLIER' : 'REPEATED_LATER';
  });
}

/** Whether `instant` ends a gap holding a wall time the cron matches: where FIRE_LATE fires it (cron.ts). */
function firesSkippedTimes(expression: string, zone: IANAZone, instant: Millis): boolean {
  const gap = locateWallTime(zone, wallTimeOf(zone, instant) - 1);
  if (gap.kind !== 'SKIPPED' || gap.gapEnd !== instant) return false;
  const matched = compileCron(expression).nextRun(new Date(gap.rangeStart - 1));
  return matched !== null && matched.getTime() < gap.rangeEnd;
}
