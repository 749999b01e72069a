import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { autocommitted, inTransaction, markRunsAccepted, markRunsDispatched } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import type { ClaimedRun } from '../claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** A run to mark DISPATCHED; `sendAt` (0: now) when it is sent later (the on-time lane). */
interface Dispatching {
  run: ClaimedRun;
  executorId: number;
  sendAt: number;
}

/**
 * The dispatcher's two writes per run — CLAIMED → DISPATCHED before the POST, → ACCEPTED after
 * the 202, which also corrects dispatched_at to when the accepted request left — batched over the slots that reach them together (Coalescer: a write waits at most
 * for the batch in flight, so a lone dispatch is not slowed). In a burst 64 slots start and ack
 * within the same milliseconds: one UPDATE for all of them instead of a transaction each. The
 * ACCEPTED mark is autocommitted (one round trip, not START/UPDATE/COMMIT): its run is at its
 * executor whichever way an unanswered commit went.
 */
@Injectable()
export class DispatchMarks {
  private readonly dispatched: Coalescer<Dispatching, number | null>;
  /** On-time runs' marks: their own batches, which never wait behind a burst's 64-row UPDATE. */
  private readonly dispatchedOnTime: Coalescer<Dispatching, number | null>;
  private readonly accepted: Coalescer<{ run: ClaimedRun; sentAt: number; acceptedAt: number }, void>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.dispatched = new Coalescer((runs) => this.writeDispatched(runs), { concurrency: 2 });
    this.dispatchedOnTime = new Coalescer((runs) => this.writeDispatched(runs), { concurrency: 2 });
    this.accepted = new Coalescer<{ run: ClaimedRun; sentAt: number; acceptedAt: number }, void>(async (acks) => {
      const now = this.clock.now();
      const runs = acks.map(({ run, sentAt, acceptedAt }) => ({ runId: run.runId, attempt: run.attempt, sentAt, acceptedAt, deadlineAt: acceptedAt + run.timeoutMs }));
      await autocommitted(this.dataSource, (em) => markRunsAccepted(em, { nodeId: this.config.nodeId, now, runs }));
      return acks.map(() => undefined);
    }, { concurrency: 2 });
  }

  /**
   * CLAIMED → DISPATCHED to `executorId`: the dispatched_at written, or null if the run is no longer
   * this node's to send. A run the on-time lane started ahead of its instant gets `sendAt`, when its
   * POST leaves, as dispatched_at (the ACCEPTED mark then writes when it did leave).
   */
  markDispatched(run: ClaimedRun, executorId: number, onTime = false, sendAt?: number): Promise<number | null> {
    return (onTime ? this.dispatchedOnTime : this.dispatched).push({ run, executorId, sendAt: sendAt ?? 0 });
  }

  /** DISPATCHED → ACCEPTED: dispatched_at becomes when the accepted request left (`sentAt`), the timeout counts from the ack. */
  markAccepted(run: ClaimedRun, sentAt: number, acceptedAt: number): Promise<void> {
    return this.accepted.push({ run, sentAt, acceptedAt });
  }

  private async writeDispatched(items: Dispatching[]): Promise<Array<number | null>> {
    const now = Math.max(this.clock.now(), ...items.map((i) => i.sendAt));
    const runs = items.map(({ run, executorId }) => ({ runId: run.runId, attempt: run.attempt, executorId, deadlineAt: now + run.timeoutMs }));
    // A transaction, not an autocommitted UPDATE: a writer killed mid-statement (test/ha) could
    // commit an autocommitted mark and lose its answer, leaving runs DISPATCHED that were never
    // sent (44 of 600 once). See docs/BENCHMARKS.md, "The engine's share of a run's cost".
    const moved = await inTransaction(this.dataSource, (em) => markRunsDispatched(em, { nodeId: this.config.nodeId, now, runs }));
    return items.map(({ run }) => (moved.has(run.runId) ? now : null));
  }
}
