import type { RunState } from '../types';
import { IllegalTransitionError } from './illegal-transition-error';

/**
 * The run state machine as data: for each state, the states a run may move to. Persistence
 * turns each edge into a conditional update naming the expected old state, so a late or
 * duplicate message finds the run elsewhere and changes nothing — no run moves backwards.
 *
 * Edges beyond the happy path PENDING → CLAIMED → DISPATCHED → ACCEPTED → SUCCEEDED, and why:
 * - PENDING → CANCELLED: cancelled by hand, or REPLACEd by a newer run, before any claim.
 * - PENDING → DISPATCHED: a run a wake-up named (a trigger's, due now, of a task with nothing to
 *   decide at its claim: no key, no concurrency policy, no fan-out) is read by an engine and claimed
 *   by its DISPATCHED mark itself, which takes the lease: one row write where a claim and a mark
 *   were two. The mark is guarded on PENDING, so a peer's claim or a cancel that came first wins.
 *   Such a run submitted to a console whose own process's engine can send it at once is even
 *   created DISPATCHED, with that engine's lease and the executor it names: the mark written at
 *   its INSERT (DirectStarts, @baton/messaging).
 * - PENDING → SKIPPED: concurrency FORBID (an earlier run is still active).
 * - CLAIMED → PENDING: the lease is released (engine shutting down) or taken over by a
 *   survivor after the owner died; the run is claimable again.
 * - CLAIMED → SKIPPED: concurrency FORBID or a misfire found at dispatch time.
 * - CLAIMED → ACCEPTED: a fan-out run (BROADCAST/SHARDED task) is never sent: its start writes
 *   its shards, and it runs — with no executor and no deadline of its own — until they have all
 *   ended (ACCEPTED → SUCCEEDED | FAILED, or CANCELLED with them).
 * - CLAIMED → RETRY_WAIT | FAILED: no UP executor of the app could be chosen, so the attempt
 *   fails without being sent; the retry policy decides which of the two.
 * - DISPATCHED → RETRY_WAIT: the executor answered busy (429) or rejected, or was unreachable.
 * - DISPATCHED → CLAIMED: every executor asked answered busy (429: it did not take the run), and
 *   the engine keeps the run in hand until one has room, instead of giving it back to the
 *   database, where it would be claimed again behind the runs due before it.
 * - DISPATCHED → PENDING: re-routed to another executor, or the lease was lost mid-send.
 * - DISPATCHED → SUCCEEDED | FAILED | TIMED_OUT: the callback can overtake the ack. The
 *   wrapper answers 202 and starts the handler; a 1 ms handler calls back (to any engine
 *   node) before the dispatching engine has recorded ACCEPTED. Refusing the callback would
 *   lose a finished run, so the result is taken from DISPATCHED, and the late 202 then finds
 *   the run finished and changes nothing. TIMED_OUT is the watchdog's verdict when the ack
 *   was never recorded (lost response, engine crashed after the 202) and the run outlived its
 *   timeout; the abort is sent either way.
 * - ACCEPTED → RETRY_WAIT: the attempt failed or timed out and the retry policy allows another.
 * - RETRY_WAIT → CLAIMED: the backoff is over and an engine claims the retry (same row,
 *   attempt + 1).
 * - PENDING | CLAIMED | RETRY_WAIT → SUCCEEDED | FAILED | TIMED_OUT (and PENDING → RETRY_WAIT):
 *   the executor's outcome for the SAME attempt after the engine lost track of it. A dead
 *   engine's DISPATCHED runs go back to PENDING at takeover, and a dispatch that got no answer
 *   waits in RETRY_WAIT; the executor may have run the handler all the same. Its signed
 *   callback is the truth about that attempt: refusing it would lose the result (the executor
 *   counts the refusal as delivered, and a re-send is de-duplicated there without a second
 *   callback), leaving the run stuck until its timeout. A failed outcome from RETRY_WAIT with
 *   attempts left stays RETRY_WAIT with attempt + 1 (an attempt change, not a state move).
 * - every non-terminal state → CANCELLED: cancelled by hand or REPLACEd; an executing run is
 *   sent an abort.
 * - APPROVAL_WAIT → PENDING | FAILED: a run waiting on an approval gate (it was never
 *   claimed, sent or started) is approved, and is claimable at once, or is rejected, and fails as
 *   a failed run would (its ON_FAILURE children fire) — by a person or by the gate's deadline.
 * - CLAIMED → HELD: its concurrency key has its limit of runs going (onLimit QUEUE); the claim
 *   gives it back as a row nobody claims, and it leaves no engine holding it.
 * - HELD → PENDING: a run of its key ended; the oldest held run takes the free place, already
 *   counted against the key, and is claimable again. HELD → CANCELLED: cancelled by hand.
 * - COALESCING → CLAIMED: a debounced or throttled key's window closed (its due time came) and
 *   an engine claims the run like any due run, with the params of the window's last submission.
 *   COALESCING → CANCELLED: cancelled by hand.
 * SUCCEEDED, FAILED, TIMED_OUT, CANCELLED and SKIPPED are terminal: nothing leaves them.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  PENDING: ['CLAIMED', 'DISPATCHED', 'CANCELLED', 'SKIPPED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'RETRY_WAIT'],
  CLAIMED: ['DISPATCHED', 'ACCEPTED', 'PENDING', 'CANCELLED', 'SKIPPED', 'RETRY_WAIT', 'FAILED', 'SUCCEEDED', 'TIMED_OUT', 'HELD'],
  DISPATCHED: ['ACCEPTED', 'RETRY_WAIT', 'PENDING', 'CLAIMED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'],
  ACCEPTED: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'RETRY_WAIT', 'CANCELLED'],
  RETRY_WAIT: ['CLAIMED', 'CANCELLED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT'],
  APPROVAL_WAIT: ['PENDING', 'FAILED', 'CANCELLED'],
  SUCCEEDED: [],
  FAILED: [],
  TIMED_OUT: [],
  CANCELLED: [],
  SKIPPED: [],
  HELD: ['PENDING', 'CANCELLED'],
  COALESCING: ['CLAIMED', 'CANCELLED'],
};

export const TERMINAL_STATES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'] as const satisfies readonly RunState[];

/**
 * States of a run that is not over: it still holds its task for the concurrency policy
 * (FORBID skips a new run while one of these exists; REPLACE cancels it), and can be cancelled.
 * APPROVAL_WAIT is one: the run is a step of its flow that a person has yet to let through.
 */
export const ACTIVE_STATES = ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT', 'APPROVAL_WAIT', 'HELD', 'COALESCING'] as const satisfies readonly RunState[];

/**
 * States in which a run with its concurrency key set counts against the key's limit: every
 * active state but HELD (a held run waits for a place; it does not take one).
 */
export const KEY_GOING_STATES = ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'] as const satisfies readonly RunState[];

/** States in which the work may be executing on an executor: cancelling them sends an abort. */
export const EXECUTING_STATES = ['DISPATCHED', 'ACCEPTED'] as const satisfies readonly RunState[];

export function canTransition(from: RunState, to: RunState): boolean {
  return RUN_TRANSITIONS[from]?.includes(to) ?? false;
}

/** Throws IllegalTransitionError unless `from → to` is an edge of the machine. */
export function assertTransition(from: RunState, to: RunState): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

export function isTerminal(state: RunState): boolean {
  return (TERMINAL_STATES as readonly RunState[]).includes(state);
}
