import type { RunState } from '../types';

/**
 * A run was asked to move along an edge the state machine does not have. In the engine this
 * usually means a late or duplicate message (a callback for a run already finished); callers
 * that expect that race catch it by `code` and drop the message.
 */
export class IllegalTransitionError extends Error {
  readonly code = 'ILLEGAL_TRANSITION';
  constructor(
    readonly from: RunState,
    readonly to: RunState,
  ) {
    super(`A run cannot move from ${from} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}
