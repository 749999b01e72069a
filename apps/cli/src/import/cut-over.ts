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
 * trigger_next_time) is the check: it should be that same first fire; when it is at or before the
 * instant (a fire it still owes: a misfire, or a blocked job), the entry says so, because that
 * fire is the old scheduler's to make before it stops. Null (not imported) when nothing fires
 * after the instant.
 */
export function firstFireFrom<S extends ScheduleFields>(schedule: S, from: number, sourceNext: number | null, scheduler: string, notes: string[]): S | null {
  const first = nextFireTime(scheduleOfFields(schedule, from), from);
  if (first === null) {
    notes.unshift(`not imported: it has no fire time after the cut-over instant ${iso(from)}`);
    return null;
  }
  if (sourceNext !== null && sourceNext <= from) notes.push(`${scheduler}'s next fire time ${iso(sourceNext)} is at or before the cut-over instant: ${scheduler} owes that fire (a misfire or a blocked job) and must make it before it stops`);
  else if (sourceNext !== null && sourceNext !== first) notes.push(`${scheduler}'s next fire time ${iso(sourceNext)} differs from Baton's first, ${iso(first)}`);
  return schedule.trigger.kind === 'ONCE' ? schedule : { ...schedule, startAt: first };
}
