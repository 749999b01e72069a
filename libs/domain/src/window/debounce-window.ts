import type { KeyDebounce, Millis } from '../types';

/** A debounced key's open window as stored on its COALESCING run: when it is due and its last instant. */
export interface DebounceWindow {
  /** When its run starts if nothing else arrives. */
  dueAt: Millis;
  /** The burst's first submission + maxWaitMs: the run starts at this instant at the latest. */
  until: Millis;
}

/**
 * The window of a debounced key after a submission at `now`: a key without an open window
 * (`open` null) opens one due `quietMs` from now, ending at the latest `maxWaitMs` from now; an
 * open window's due time moves to `quietMs` from now, never past its `until`. A submission that
 * arrives after its window was due but before an engine claimed its run joins it (nothing started
 * yet), and the run then starts at once: its `until` has passed.
 */
export function debounceWindow(open: DebounceWindow | null, rule: Pick<KeyDebounce, 'quietMs' | 'maxWaitMs'>, now: Millis): DebounceWindow {
  const until = open ? open.until : now + rule.maxWaitMs;
  return { dueAt: Math.min(now + rule.quietMs, until), until };
}
