import { nextFireTime, type Schedule, type Trigger } from '@baton/domain';

/** An imported task's schedule fields (absent: Baton's default, null). */
export interface ScheduleFields {
  trigger: Trigger;
  startAt?: number;
  endAt?: number;
  misfirePolicy: string;
}

/** The domain's view of the fields, for a task not yet fired (no calendar: exclusions only skip fires, they never add one). */
export function scheduleOfFields(fields: ScheduleFields, createdAt: number): Schedule {
  return { trigger: fields.trigger, startAt: fields.startAt ?? null, endAt: fields.endAt ?? null, maxFires: null, fireCount: 0, calendar: null, createdAt: fields.startAt ?? createdAt };
}

const iso = (t: number) => new Date(t).toISOString();

/**
 * `--from <instant>`: the task's first fire is its first fire time strictly after the cut-over
 * instant (the old scheduler fires up to and including it), written as the task's startAt — a
 * grid point of the trigger's own, so an interval keeps its phase. The next fire time the old
 * scheduler stored (`scheduler`: its name in the notes; Quartz's NEXT_FIRE_TIME, XXL-JOB's
 * trigger_next_time) is the check. Read before the instant, as the procedure has it, it is a fire
 * still to come at or before the instant — the old scheduler's to make, nothing to say — unless
 * it had passed when read (`now`): a fire it owes (a misfire, or a blocked job), which the entry
 * names, because the old scheduler must make it before it stops. Read after the instant, it
 * should be Baton's first fire; the entry says where it is not — and when the two are a zone
 * offset apart and the schedule was read in a zone the import assumed (`assumedZone`: XXL-JOB's
 * crons, read in --time-zone), that the zone is the likely cause. Null (not imported) when nothing
 * fires after the instant.
 */
export function firstFireFrom<S extends ScheduleFields>(schedule: S, from: number, sourceNext: number | null, scheduler: string, notes: string[], now: number, assumedZone: string | null = null): S | null {
  const first = nextFireTime(scheduleOfFields(schedule, from), from);
  if (first === null) {
    notes.unshift(`not imported: it has no fire time after the cut-over instant ${iso(from)}`);
    return null;
  }
  if (sourceNext !== null && sourceNext < now && sourceNext <= from) notes.push(`${scheduler}'s next fire time ${iso(sourceNext)} had passed when read and is at or before the cut-over instant: ${scheduler} owes that fire (a misfire or a blocked job) and must make it before it stops`);
  else if (sourceNext !== null && sourceNext > from && sourceNext !== first) notes.push(`${scheduler}'s next fire time ${iso(sourceNext)} differs from Baton's first, ${iso(first)}${zoneHint(Math.abs(sourceNext - first), assumedZone)}`);
  return schedule.trigger.kind === 'ONCE' ? schedule : { ...schedule, startAt: first };
}

const HOUR_MS = 3_600_000;
/** Two zones' offsets differ by at most 26 hours (−12:00 to +14:00), in whole hours or with :30 or :45 (India, Nepal, Chatham…). */
const ZONE_MINUTES = new Set([0, 30, 45]);

/** ": <difference> apart, as a time zone makes …" when `difference` could be two zones' offsets apart and the import assumed the zone; else "". */
function zoneHint(difference: number, assumedZone: string | null): string {
  if (assumedZone === null || difference > 26 * HOUR_MS || difference % 60_000 !== 0 || !ZONE_MINUTES.has((difference % HOUR_MS) / 60_000)) return '';
  const hours = Math.floor(difference / HOUR_MS);
  const minutes = (difference % HOUR_MS) / 60_000;
  const apart = [hours > 0 ? `${hours} h` : '', minutes > 0 ? `${minutes} min` : ''].filter(Boolean).join(' ');
  return `: ${apart} apart, as a time zone's offset is — the likely cause is the zone: the schedule was read in ${assumedZone} (--time-zone), check it is the scheduler's`;
}
