import type { MisfirePolicy } from '@baton/domain';

/** Baton's misfire policy for a Quartz trigger's MISFIRE_INSTR, and where Baton's differs from what Quartz would do. */
export interface ResolvedMisfire {
  policy: MisfirePolicy;
  /** Null when Baton does what Quartz does. */
  difference: string | null;
}

const SMART = 0;
const IGNORE = -1;

/**
 * Resolves Quartz's smart policy (0) as each trigger type's updateAfterMisfire does, then maps:
 * - IGNORE_MISFIRE_POLICY (-1): every missed time runs → FIRE_ALL_MISSED.
 * - cron, calendar-interval, daily-time-interval: smart = FIRE_ONCE_NOW (1) → FIRE_ONCE_NOW;
 *   DO_NOTHING (2) → SKIP.
 * - simple: smart = FIRE_NOW (1) when it fires once, RESCHEDULE_NEXT_WITH_REMAINING_COUNT (4)
 *   when it repeats forever, else RESCHEDULE_NOW_WITH_EXISTING_REPEAT_COUNT (2); FIRE_NOW on a
 *   repeating trigger is RESCHEDULE_NOW_WITH_REMAINING_REPEAT_COUNT (3). 1 → FIRE_ONCE_NOW;
 *   4 and 5 (next, with remaining / existing count) → SKIP; 2 and 3 (now, …) → FIRE_ONCE_NOW.
 *   Baton keeps a simple trigger's grid (start + k × interval, up to the last repeat), so 2, 3
 *   and 5 — which move the grid or the last repeat in Quartz — are listed as differences.
 */
export function resolveMisfire(type: string, instruction: number, repeatCount: number | null): ResolvedMisfire {
  if (instruction === IGNORE) return { policy: 'FIRE_ALL_MISSED', difference: null };
  if (type !== 'SIMPLE') {
    if (instruction === SMART || instruction === 1) return { policy: 'FIRE_ONCE_NOW', difference: null };
    if (instruction === 2) return { policy: 'SKIP', difference: null };
    return { policy: 'FIRE_ONCE_NOW', difference: `misfire instruction ${instruction} is not one Quartz defines for this trigger type; FIRE_ONCE_NOW (Quartz's smart policy) is used` };
  }
  const once = repeatCount === 0;
  let resolved = instruction;
  if (instruction === SMART) resolved = once ? 1 : repeatCount === -1 ? 4 : 2;
  else if (instruction === 1 && !once) resolved = 3;
  switch (resolved) {
    case 1:
      return { policy: 'FIRE_ONCE_NOW', difference: null };
    case 4:
      return { policy: 'SKIP', difference: null };
    case 5:
      return { policy: 'SKIP', difference: repeatCount === -1 ? null : 'misfire RESCHEDULE_NEXT_WITH_EXISTING_COUNT: Quartz would add the missed repeats after the last one; Baton ends at the last repeat of the original grid' };
    case 2:
    case 3:
      return {
        policy: 'FIRE_ONCE_NOW',
        difference: `misfire ${resolved === 2 ? 'RESCHEDULE_NOW_WITH_EXISTING_REPEAT_COUNT' : 'RESCHEDULE_NOW_WITH_REMAINING_REPEAT_COUNT'}${instruction === SMART ? ' (the smart policy of a trigger with a repeat count)' : ''}: both run once at once; Quartz then restarts the interval from that instant, Baton keeps the original grid`,
      };
    default:
      return { policy: 'FIRE_ONCE_NOW', difference: `misfire instruction ${instruction} is not one Quartz defines for a simple trigger; FIRE_ONCE_NOW is used` };
  }
}
