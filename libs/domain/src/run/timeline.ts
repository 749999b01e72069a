import type { AttemptState } from '../types';

/** The steps of a run attempt, in the one order the console shows them. */
export const TIMELINE_STEPS = ['SCHEDULED', 'DISPATCHED', 'ACCEPTED', 'STARTED', 'FINISHED'] as const;
export type TimelineStep = (typeof TIMELINE_STEPS)[number];

/** Whose clock measured a step: the engine's, or the executor's (another machine's). */
export type TimelineClock = 'engine' | 'executor';

export interface TimelineEntry {
  step: TimelineStep;
  /** Epoch ms; null: not reached (yet). */
  at: number | null;
  clock: TimelineClock;
  /** Reported earlier than a step before it in the order; `note` says why that happens. */
  outOfOrder: boolean;
  note: string | null;
}

/** The times of one attempt (a run row, or an attempt kept by a retry). */
export interface AttemptTimes {
  /** The attempt's nominal time: the fire time on a first attempt, the end of its backoff on a retry. */
  scheduledAt: number;
  dispatchedAt: number | null;
  acceptedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** Its state: a CANCELLED or SKIPPED attempt's end is Baton's write (a cancel, a skip), never the executor's. */
  state?: AttemptState | null;
  /**
   * Whose clock stamped finishedAt, as recorded with the end: an outcome's may be either (the
   * executor reports its end, or the engine decides it — a timeout, a lost executor, a refused
   * dispatch — or stamps an end reported without a time). Null or absent: not recorded (not
   * ended, or ended before Baton recorded it); the state says then.
   */
  finishedClock?: TimelineClock | null;
}

const CLOCKS: Record<TimelineStep, TimelineClock> = { SCHEDULED: 'engine', DISPATCHED: 'engine', ACCEPTED: 'engine', STARTED: 'executor', FINISHED: 'executor' };

/** Ends no executor reports: their finished time is the canceller's or the engine's clock, recorded or not. */
const ENDED_BY_BATON: readonly AttemptState[] = ['CANCELLED', 'SKIPPED'];

const WHY_EARLY: Partial<Record<TimelineStep, string>> = {
  STARTED: "The executor starts the handler as it answers 202, so Started (executor clock) can come before Accepted (when the 202 reached the engine) by the answer's trip and the two machines' clock difference",
  FINISHED: "Finished is the executor's clock (the engine's for a run it ended: timeout, cancel): a clock difference between the machines can put it before an engine step",
};

/**
 * An attempt's timeline in one fixed order — Scheduled, Dispatched, Accepted, Started, Finished —
 * whatever the times say, so two runs read alike (sorting by time swapped Accepted and Started
 * from one run to the next). A step reported earlier than one before it is flagged out of order,
 * with why that happens: two clocks, and a handler started while the 202 is on its way. An
 * attempt that ended before its instant (cancelled, withdrawn, or refused while sent ahead) never
 * reached its scheduled time: its steps are not measured against that plan, only against each other.
 */
export function attemptTimeline(times: AttemptTimes): TimelineEntry[] {
  const at: Record<TimelineStep, number | null> = {
    SCHEDULED: times.scheduledAt,
    DISPATCHED: times.dispatchedAt,
    ACCEPTED: times.acceptedAt,
    STARTED: times.startedAt,
    FINISHED: times.finishedAt,
  };
  const endedBeforeInstant = times.finishedAt !== null && times.finishedAt < times.scheduledAt;
  const finishedClock = times.finishedClock ?? (times.state != null && ENDED_BY_BATON.includes(times.state) ? 'engine' : 'executor');
  let latest = -Infinity;
  return TIMELINE_STEPS.map((step) => {
    const value = at[step];
    const outOfOrder = value !== null && value < latest;
    if (value !== null && !(step === 'SCHEDULED' && endedBeforeInstant)) latest = Math.max(latest, value);
    const clock = step === 'FINISHED' ? finishedClock : CLOCKS[step];
    return { step, at: value, clock, outOfOrder, note: outOfOrder ? (WHY_EARLY[step] ?? 'Reported earlier than a step before it: the steps come from two machines’ clocks') : null };
  });
}
