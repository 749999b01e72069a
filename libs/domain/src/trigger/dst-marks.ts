import { IANAZone } from 'luxon';
import type { DstMark, Millis, Trigger } from '../types';
import { nextCronTime } from './cron';
import { cronDstOf } from './cron-dst';
import { locateWallTime, wallTimeOf } from './wall-time';

/**
 * The mark of each of a cron trigger's consecutive fires (`fires`, the first one the first
 * after `after`), or null where daylight saving played no part. A skipped time is told by
 * asking for the next fire under the other skipped-time policy: SKIP's fires are FIRE_LATE's
 * less the late ones.
 */
export function dstMarks(trigger: Extract<Trigger, { kind: 'CRON' }>, after: Millis, fires: Millis[]): (DstMark | null)[] {
  const dst = cronDstOf(trigger);
  const zone = IANAZone.create(trigger.timeZone);
  const other = { ...dst, skippedTime: dst.skippedTime === 'SKIP' ? ('FIRE_LATE' as const) : ('SKIP' as const) };
  return fires.map((t, i) => {
    const previous = i === 0 ? after : fires[i - 1];
    const otherNext = nextCronTime(trigger.expression, trigger.timeZone, previous, other);
    if (dst.skippedTime === 'SKIP' && otherNext !== null && otherNext < t) return 'AFTER_SKIPPED';
    if (dst.skippedTime === 'FIRE_LATE' && otherNext !== t) return 'FIRED_LATE';
    const wall = locateWallTime(zone, wallTimeOf(zone, t));
    if (wall.kind !== 'REPEATED') return null;
    return wall.earlier === t ? 'REPEATED_EARLIER' : 'REPEATED_LATER';
  });
}
