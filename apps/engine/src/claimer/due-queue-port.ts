import type { ClaimedRun } from '../claimed-run';

/**
 * What the claim side needs of the dispatch side's DueQueue (apps/engine/src/dispatch): it
 * takes ownership of claimed runs, holds them until due, and gives back what it still holds on
 * shutdown. Injected under DUE_QUEUE (EngineModule binds it to the DueQueue class), so the
 * claim side can be built and tested without the dispatch side.
 */
export interface DueQueuePort {
  /** Takes ownership: holds the runs in the timer queue until due, then dispatches them. */
  accept(runs: ClaimedRun[]): void;
  /** Runs held, not yet dispatched. */
  readonly held: number;
  /** Hands back every run still held (shutdown); the queue dispatches none of them afterwards. */
  drain(): ClaimedRun[];
}

/** Injection token of the node's DueQueuePort. */
export const DUE_QUEUE = Symbol('baton.engine.due-queue');
