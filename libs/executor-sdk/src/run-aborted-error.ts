import type { AbortReason } from '@baton/protocol';

const MESSAGES: Record<AbortReason, string> = {
  TIMEOUT: 'aborted by the engine: the run timed out',
  CANCELLED: 'aborted by the engine: the run was cancelled',
  REPLACED: 'aborted by the engine: the run was replaced by a newer one',
  DEADLINE: 'aborted: the run passed its deadline',
  SHUTDOWN: 'aborted: the executor is shutting down',
  NO_CONTACT: 'not started: sent ahead, and no engine had answered a heartbeat within the sent-ahead lease before its instant (or the engines handed it back)',
};

/** The `reason` of an aborted `ctx.signal`; what `ctx.sleep` rejects with. */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  readonly code = 'RUN_ABORTED';

  constructor(readonly reason: AbortReason, message = MESSAGES[reason]) {
    super(message);
  }
}
