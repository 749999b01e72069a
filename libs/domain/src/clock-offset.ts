import type { Clock } from './clock';

/**
 * A clock corrected by a measured offset (issue 39 item 2): the base clock's time plus the offset
 * last measured against a reference (the database's clock), so every engine of a cluster schedules
 * on one time however far its own machine's clock has drifted. Timers are the base clock's: a
 * duration does not depend on the offset. Reads no clock of its own.
 */
export class OffsetClock implements Clock {
  private offset = 0;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  /** The base clock's time, uncorrected: what an offset is measured on. */
  raw(): number {
    return this.base.now();
  }

  after(ms: number, fn: () => void): () => void {
    return this.base.after(ms, fn);
  }

  /** The correction now applied (reference − base), ms. */
  get offsetMs(): number {
    return this.offset;
  }

  correct(offsetMs: number): void {
    this.offset = offsetMs;
  }
}

/** One exchange with the reference clock: base time before the request, the reference's answer, base time after. */
export interface ClockReading {
  sentAt: number;
  referenceAt: number;
  receivedAt: number;
}

/**
 * Milliseconds a reading's two clocks may each be off by their rounding: the reference rounds to
 * the millisecond (up to ½ ms ahead), the base truncates (up to 1 ms behind).
 */
export const READING_ROUNDING_MS = 2;

/**
 * The offset of the reference from the base clock (reference − base, ms), assuming the answer was
 * read halfway through the round trip (Cristian's algorithm); `uncertaintyMs`, half the round
 * trip, bounds its error. `notAheadMs`: the largest offset sure not to put the base clock ahead of
 * the reference — the answer read at the very end of the round trip, less the readings' rounding —
 * which a clock that must never start anything early applies (up to the round trip and
 * READING_ROUNDING_MS behind the reference, never ahead of it).
 */
export function offsetOf(reading: ClockReading): { offsetMs: number; uncertaintyMs: number; notAheadMs: number } {
  const roundTrip = Math.max(0, reading.receivedAt - reading.sentAt);
  return {
    offsetMs: Math.round(reading.referenceAt - (reading.sentAt + roundTrip / 2)),
    uncertaintyMs: Math.ceil(roundTrip / 2),
    notAheadMs: Math.floor(reading.referenceAt - Math.max(reading.receivedAt, reading.sentAt)) - READING_ROUNDING_MS,
  };
}

/** IN_BOUND; SKEWED: beyond the alarm bound; STOPPED: beyond the stop bound (the engine claims nothing). */
export type ClockSkewState = 'IN_BOUND' | 'SKEWED' | 'STOPPED';

/** Where an offset stands against its bounds (each 0: no such bound). */
export function clockSkewState(offsetMs: number, bounds: { alarmMs: number; stopMs: number }): ClockSkewState {
  const off = Math.abs(offsetMs);
  if (bounds.stopMs > 0 && off > bounds.stopMs) return 'STOPPED';
  if (bounds.alarmMs > 0 && off > bounds.alarmMs) return 'SKEWED';
  return 'IN_BOUND';
}
