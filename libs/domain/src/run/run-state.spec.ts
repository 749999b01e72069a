import { describe, expect, it } from 'vitest';
import { RUN_STATES } from '../types';
import type { RunState } from '../types';
import { IllegalTransitionError } from './illegal-transition-error';
import {
  ACTIVE_STATES,
  assertTransition,
  canTransition,
  EXECUTING_STATES,
  isTerminal,
  RUN_TRANSITIONS,
  TERMINAL_STATES,
} from './run-state';

// The legal edges, written out independently of RUN_TRANSITIONS so that a change to the
// machine has to be made (and argued) twice.
const LEGAL = new Set<string>([
  'PENDING→CLAIMED',
  'PENDING→CANCELLED',
  'PENDING→SKIPPED',
  // A wake-up's run claimed by its DISPATCHED mark (one write for claim and mark).
  'PENDING→DISPATCHED',
  'CLAIMED→DISPATCHED',
  'CLAIMED→ACCEPTED',
  'CLAIMED→PENDING',
  'CLAIMED→CANCELLED',
  'CLAIMED→SKIPPED',
  'CLAIMED→RETRY_WAIT',
  'CLAIMED→FAILED',
  'DISPATCHED→ACCEPTED',
  'DISPATCHED→RETRY_WAIT',
  'DISPATCHED→PENDING',
  // Every executor asked answered busy (429): the engine keeps the run in hand until one has room.
  'DISPATCHED→CLAIMED',
  'DISPATCHED→SUCCEEDED',
  'DISPATCHED→FAILED',
  'DISPATCHED→TIMED_OUT',
  'DISPATCHED→CANCELLED',
  'ACCEPTED→SUCCEEDED',
  'ACCEPTED→FAILED',
  'ACCEPTED→TIMED_OUT',
  'ACCEPTED→RETRY_WAIT',
  'ACCEPTED→CANCELLED',
  'RETRY_WAIT→CLAIMED',
  'RETRY_WAIT→CANCELLED',
  // The outcome of an attempt whose engine lost track of it (takeover, unanswered dispatch).
  'PENDING→SUCCEEDED',
  'PENDING→FAILED',
  'PENDING→TIMED_OUT',
  'PENDING→RETRY_WAIT',
  'CLAIMED→SUCCEEDED',
  'CLAIMED→TIMED_OUT',
  'RETRY_WAIT→SUCCEEDED',
  'RETRY_WAIT→FAILED',
  'RETRY_WAIT→TIMED_OUT',
  // An approval step: approved (claimable at once), rejected (fails as a failed run), or cancelled.
  'APPROVAL_WAIT→PENDING',
  'APPROVAL_WAIT→FAILED',
  'APPROVAL_WAIT→CANCELLED',
  // Concurrency keys: a claimed run whose key is full waits HELD; a place frees it, or a cancel ends it.
  'CLAIMED→HELD',
  'HELD→PENDING',
  'HELD→CANCELLED',
  // Debounce and throttle: a key's open window is claimed once due, or cancelled by hand.
  'COALESCING→CLAIMED',
  'COALESCING→CANCELLED',
]);

const ALL_PAIRS: Array<[RunState, RunState]> = RUN_STATES.flatMap((from) => RUN_STATES.map((to): [RunState, RunState] => [from, to]));

describe('run state machine', () => {
  it('has 13 states, so 169 ordered pairs to judge', () => {
    expect(ALL_PAIRS).toHaveLength(169);
  });

  it.each(ALL_PAIRS)('%s → %s is legal exactly when listed', (from, to) => {
    const legal = LEGAL.has(`${from}→${to}`);
    expect(canTransition(from, to)).toBe(legal);
    if (legal) expect(() => assertTransition(from, to)).not.toThrow();
    else expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
  });

  it('accepts exactly the listed number of edges', () => {
    expect(ALL_PAIRS.filter(([f, t]) => canTransition(f, t))).toHaveLength(LEGAL.size);
  });

  it('has no self-loops (a repeated message must not look like progress)', () => {
    for (const s of RUN_STATES) expect(canTransition(s, s)).toBe(false);
  });

  it('lets nothing leave a terminal state', () => {
    for (const s of TERMINAL_STATES) {
      expect(isTerminal(s)).toBe(true);
      expect(RUN_TRANSITIONS[s]).toEqual([]);
      for (const to of RUN_STATES) expect(canTransition(s, to)).toBe(false);
    }
  });

  it('lets every active state be cancelled and reach a terminal state', () => {
    for (const s of ACTIVE_STATES) {
      expect(isTerminal(s)).toBe(false);
      expect(canTransition(s, 'CANCELLED')).toBe(true);
    }
  });

  it('splits the states into active and terminal, with executing ⊂ active', () => {
    expect([...ACTIVE_STATES, ...TERMINAL_STATES].sort()).toEqual([...RUN_STATES].sort());
    expect(ACTIVE_STATES.filter((s) => (TERMINAL_STATES as readonly string[]).includes(s))).toEqual([]);
    for (const s of EXECUTING_STATES) expect(ACTIVE_STATES).toContain(s);
    expect([...EXECUTING_STATES]).toEqual(['DISPATCHED', 'ACCEPTED']);
  });

  it('never lets a run waiting for approval be claimed, sent or succeed without a decision', () => {
    for (const to of ['CLAIMED', 'DISPATCHED', 'ACCEPTED', 'SUCCEEDED', 'RETRY_WAIT'] as const) expect(canTransition('APPROVAL_WAIT', to)).toBe(false);
    expect(canTransition('PENDING', 'APPROVAL_WAIT')).toBe(false);
  });

  it('takes a callback that overtakes the 202 ack (DISPATCHED → SUCCEEDED), after which the ack changes nothing', () => {
    expect(canTransition('DISPATCHED', 'SUCCEEDED')).toBe(true);
    expect(canTransition('SUCCEEDED', 'ACCEPTED')).toBe(false);
  });

  it('names the refused move and carries a stable code', () => {
    try {
      assertTransition('SUCCEEDED', 'RETRY_WAIT');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(IllegalTransitionError);
      const err = e as IllegalTransitionError;
      expect(err.code).toBe('ILLEGAL_TRANSITION');
      expect(err.from).toBe('SUCCEEDED');
      expect(err.to).toBe('RETRY_WAIT');
      expect(err.message).toBe('A run cannot move from SUCCEEDED to RETRY_WAIT');
    }
  });

  it('refuses a state that is not a run state', () => {
    expect(canTransition('BOGUS' as RunState, 'PENDING')).toBe(false);
  });
});
