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
 * grid point of the trigger's own, so an interval keeps its phase. Quartz's stored NEXT_FIRE_TIME
 * is the check: it should be that same first fire; when it is at or before the instant (a fire
 * Quartz still owes: a misfire, or a blocked job), the entry says so, because that fire is
 * Quartz's to make before it stands by. Null (not imported) when nothing fires after the instant.
 */
export function firstFireFrom<S extends ScheduleFields>(schedule: S, from: number, quartzNext: number | null, notes: string[]): S | null {
  const first = nextFireTime(scheduleOfFields(schedule, from), from);
  if (first === null) {
    notes.unshift(`not imported: it has no fire time after the cut-over instant ${iso(from)}`);
    return null;
  }
  if (quartzNext !== null && quartzNext <= from) notes.push(`Quartz's next fire time ${iso(quartzNext)} is at or before the cut-over instant: Quartz owes that fire (a misfire or a blocked job) and must make it before it stands by`);
  else if (quartzNext !== null && quartzNext !== first) notes.push(`Quartz's next fire time ${iso(quartzNext)} differs from Baton's first, ${iso(first)}`);
  return schedule.trigger.kind === 'ONCE' ? schedule : { ...schedule, startAt: first };
}
