import type { ClaimedRun } from '../common/claimed-run';

/**
 * What the claim side needs of the dispatch side's DueQueue (apps/engine/src/dispatch): it
 * takes ownership of claimed runs, holds them until due, and gives back what it still holds on
 * shutdown. Injected under DUE_QUEUE (EngineModule binds it to the DueQueue class), so the
 * claim side can be built and tested without the dispatch side.
 */
export interface DueQueuePort {
  /** Takes ownership: holds the runs in the timer queue until due, then dispatches them. */
  accept(runs: ClaimedRun[]): void;
  /**
   * Brings up to date what accept() decides by — whether a run's executors start it at its
   * instant, so it may go ahead (their protocol, read with the routing table) — when it is stale
   * or was never read (an engine that has not sent a run yet). Called before a claim.
   */
  refreshRouting(): Promise<void>;
  /** Runs held, not yet dispatched. */
  readonly held: number;
  /** Runs of one tenant held, not yet dispatched (waiting for their due time, a token, a slot or executor room). */
  heldOf(tenantId: string): number;
  /** Runs of one task of the tenant held, not yet dispatched (as heldOf). */
  heldOfTask(tenantId: string, taskId: number): number;
  /** Runs of one tenant already due and waiting here to be sent (for a slot or for room on an executor): what a run of it claimed now goes out behind. */
  waitingOf(tenantId: string): number;
  /**
   * Whether runs of the tenant wait here for its quota's tokens (its bucket is empty): a run
   * claimed now would wait behind them, so a wake-up need not start a claim turn for it.
   */
  paced(tenantId: string): boolean;
  /**
   * Whether the run is in this node's hands: waiting here, or being dispatched (from its launch to
   * its ACCEPTED mark), or held back for room on an executor. A run this node holds in the
   * database but not here is a stray (LeaseRenewerService).
   */
  holds(runId: number): boolean;
  /** Called with its tenant each time a held run leaves (sent, or given back): the claimer refills a tenant's budget. */
  onReleased(listener: (tenantId: string) => void): void;
  /** Hands back every run still held (shutdown); the queue dispatches none of them afterwards. */
  drain(): ClaimedRun[];
}

/** Injection token of the node's DueQueuePort. */
export const DUE_QUEUE = Symbol('baton.engine.due-queue');
