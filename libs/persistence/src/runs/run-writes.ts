import { canTransition, RUN_STATES, type RunState } from '@baton/domain';

/**
 * A query's change to runs' state, declared once: the states it may move a run from and the
 * state(s) it moves it to — or `same` for a write guarded by state that never changes it
 * (progress, a reroute, the late mark). The query builds its SQL guard from the declaration
 * (`stateIn`), and run-writes.spec.ts checks every declaration against the domain's
 * RUN_TRANSITIONS: the state machine in libs/domain is the rule the SQL obeys, not a comment.
 */
export interface RunWrite {
  /** The query function that makes it. */
  name: string;
  from: readonly RunState[];
  to: readonly RunState[] | 'same';
  /**
   * From-states the write leaves as they are while it changes the attempt (a failed outcome of a
   * run waiting in RETRY_WAIT stays RETRY_WAIT with attempt + 1: RUN_TRANSITIONS' comment) — not
   * a move, so not an edge of the machine.
   */
  attemptChangeFrom: readonly RunState[];
}

const declared: RunWrite[] = [];

/** Declares a run write (registered for run-writes.spec.ts). */
export function runWrite(
  name: string,
  from: readonly RunState[],
  to: RunState | readonly RunState[] | 'same',
  options: { attemptChangeFrom?: readonly RunState[] } = {},
): RunWrite {
  const write: RunWrite = { name, from: [...from], to: to === 'same' ? 'same' : typeof to === 'string' ? [to] : [...to], attemptChangeFrom: [...(options.attemptChangeFrom ?? [])] };
  declared.push(write);
  return write;
}

/** Every run write declared so far (by the modules imported). */
export function declaredRunWrites(): readonly RunWrite[] {
  return declared;
}

/** The edges of `writes` that RUN_TRANSITIONS does not allow, as `name: FROM → TO`. */
export function illegalEdges(writes: readonly RunWrite[]): string[] {
  const out: string[] = [];
  for (const w of writes) {
    if (w.to === 'same') continue;
    for (const from of w.from) {
      for (const to of w.to) {
        const attemptChange = from === to && w.attemptChangeFrom.includes(from);
        if (!attemptChange && !canTransition(from, to)) out.push(`${w.name}: ${from} → ${to}`);
      }
    }
  }
  return out;
}

/**
 * `state IN ('A', 'B')` for the write's `from` states — or for `only` of them, when the caller
 * narrows the guard (it may not widen it: a state outside the declaration is an error). States
 * are a closed enum of upper-case words, checked here, so they are written as literals.
 */
export function stateIn(write: RunWrite, only?: readonly RunState[], column = 'state'): string {
  const states = only ?? write.from;
  for (const s of states) {
    if (!write.from.includes(s) || !(RUN_STATES as readonly string[]).includes(s)) throw new Error(`${write.name}: ${s} is not a state it is declared to move runs from`);
  }
  if (states.length === 0) throw new Error(`${write.name}: no state to move runs from`);
  return `${column} IN (${states.map((s) => `'${s}'`).join(', ')})`;
}

/** Checks that `to` is one of the write's declared targets (a query whose target is a parameter). */
export function assertTarget(write: RunWrite, to: RunState): void {
  if (write.to === 'same' || !write.to.includes(to)) throw new Error(`${write.name}: ${to} is not a state it is declared to move runs to`);
}
