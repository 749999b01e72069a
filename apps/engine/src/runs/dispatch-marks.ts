import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { claimLeaseUntil, CLOCK, type Clock } from '@baton/domain';
import { setTimeout as delay } from 'node:timers/promises';
import { autocommitted, markRunsAccepted, markRunsDispatched, readBackDispatchMarks, type AckTimes, type MarkOutcome } from '@baton/persistence';
import { Coalescer } from '@baton/scheduling';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/**
 * A run to mark DISPATCHED; `sendAt` (0: now) when it is sent later (the on-time lane); `startAt`
 * (0: when sent) when its executor starts it at that instant (sent ahead).
 */
interface Dispatching {
  run: ClaimedRun;
  executorId: number;
  sendAt: number;
  startAt: number;
}

/** An executor's 202 for a run: when the accepted request left, and when the answer came. */
interface Ack extends AckTimes {
  run: ClaimedRun;
}

/**
 * The dispatcher's two writes per run — CLAIMED → DISPATCHED before the POST (PENDING → DISPATCHED
 * for a wake-up's run read unclaimed: the mark is its claim, RunClaims.readNamed), → ACCEPTED after
 * the 202, which also corrects dispatched_at to when the accepted request left — batched over the slots that reach them together (Coalescer: a write waits at most
 * for the batch in flight, so a lone dispatch is not slowed). In a burst 64 slots start and ack
 * within the same milliseconds: one UPDATE for all of them instead of a transaction each. Both
 * marks are autocommitted (one round trip, not START/UPDATE/COMMIT). An ACCEPTED mark's run is at
 * its executor whichever way an unanswered commit went; a DISPATCHED mark whose answer is lost
 * is read back (readBackDispatchMarks) to learn which runs it moved, since those must be sent.
 *
 * With BATON_ACK_HOLD_MS (default 250 ms) the ACCEPTED marks are held that long before they are
 * written, all held ones together. A run whose outcome comes back meanwhile — most on-demand work,
 * a handler of a few ms — has its 202 written with the outcome instead (the callback takes it:
 * heldAck, then settled once the outcome is written), so it goes DISPATCHED → SUCCEEDED with its
 * Accepted time and no ACCEPTED write of its own. A run's row has 14 indexes, 8 of them on
 * `state`: each state change rewrites those entries, and the ACCEPTED one was one row write of the
 * five a run makes (INSERT, CLAIMED, DISPATCHED, ACCEPTED, outcome) — MariaDB's CPU is most of
 * what an on-demand run costs (docs/BENCHMARKS.md, on demand). The outcome of a run whose callback
 * reached another engine (this one was down or did not answer) leaves the held mark nothing to
 * match: that run's timeline has no Accepted time. Nothing waits for the mark: the slot is free at
 * the 202 (Dispatcher.recordAck), the run stays this node's in hand until its mark is written or
 * taken, and a takeover meanwhile re-sends it to the same executor, which de-duplicates, as for a
 * DISPATCHED run at any time.
 */
@Injectable()
export class DispatchMarks {
  private readonly logger = new Logger('DispatchMarks');
  /** Each run's dispatched_at, null if no longer this node's, or the error of a mark that did not move it. */
  private readonly dispatched: Coalescer<Dispatching, number | null | Error>;
  /** On-time runs' marks: their own batches, which never wait behind a burst's 64-row UPDATE. */
  private readonly dispatchedOnTime: Coalescer<Dispatching, number | null | Error>;
  private readonly accepted: Coalescer<Ack, void>;
  /** Acks held until the hold ends (then written together) or their outcome takes them, by run id, each with its caller's promise. */
  private readonly held = new Map<number, { ack: Ack; resolve: () => void; reject: (err: unknown) => void }>();
  /** Cancels the pending end of the hold; null: none pending. */
  private holdEnds: (() => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.dispatched = new Coalescer((runs) => this.writeDispatched(runs), { concurrency: 2 });
    this.dispatchedOnTime = new Coalescer((runs) => this.writeDispatched(runs), { concurrency: 2 });
    this.accepted = new Coalescer<Ack, void>(async (acks) => {
      const now = this.clock.now();
      const runs = acks.map(({ run, sentAt, acceptedAt }) => ({ runId: run.runId, attempt: run.attempt, sentAt, acceptedAt, deadlineAt: acceptedAt + run.timeoutMs }));
      await autocommitted(this.dataSource, (em) => markRunsAccepted(em, { nodeId: this.config.nodeId, now, runs }));
      return acks.map(() => undefined);
    }, { concurrency: 2 });
  }

  /**
   * CLAIMED → DISPATCHED to `executorId`: the dispatched_at written, or null if the run is no longer
   * this node's to send. A run the on-time lane started ahead of its instant gets `sendAt`, when its
   * POST leaves, as dispatched_at (the ACCEPTED mark then writes when it did leave). A run sent
   * ahead of its instant (`startAt`) has its timeout counted from that instant.
   */
  async markDispatched(run: ClaimedRun, executorId: number, onTime = false, sendAt?: number, startAt?: number): Promise<number | null> {
    const at = await (onTime ? this.dispatchedOnTime : this.dispatched).push({ run, executorId, sendAt: sendAt ?? 0, startAt: startAt ?? 0 });
    if (at instanceof Error) throw at;
    return at;
  }

  /**
   * DISPATCHED → ACCEPTED: dispatched_at becomes when the accepted request left (`sentAt`), the
   * timeout counts from the ack (`acceptedAt`). For a run sent ahead the dispatcher gives its
   * instant for both: the run was handed over for then, and its timeline and timeout start there.
   */
  markAccepted(run: ClaimedRun, sentAt: number, acceptedAt: number): Promise<void> {
    if (this.config.ackHoldMs <= 0) return this.accepted.push({ run, sentAt, acceptedAt });
    return new Promise<void>((resolve, reject) => {
      this.held.get(run.runId)?.resolve(); // an older attempt's, not written: this one's supersedes it
      this.held.set(run.runId, { ack: { run, sentAt, acceptedAt }, resolve, reject });
      this.holdEnds ??= this.clock.after(this.config.ackHoldMs, () => this.writeHeld());
    });
  }

  /** The 202 held for this attempt, for its outcome to write (then `settled`); null: none held (written already, or never held). */
  heldAck(runId: number, attempt: number): AckTimes | null {
    const held = this.held.get(runId);
    return held && held.ack.run.attempt === attempt ? { sentAt: held.ack.sentAt, acceptedAt: held.ack.acceptedAt } : null;
  }

  /** The attempt's outcome, written with its held 202: the ACCEPTED mark is not needed any more. */
  settled(runId: number, attempt: number): void {
    const held = this.held.get(runId);
    if (!held || held.ack.run.attempt !== attempt) return;
    this.held.delete(runId);
    held.resolve();
  }

  /** Writes the held ACCEPTED marks now: the hold's end, or shutdown (the dispatcher waits for them). */
  writeHeld(): void {
    this.holdEnds?.();
    this.holdEnds = null;
    const held = [...this.held.values()];
    this.held.clear();
    for (const { ack, resolve, reject } of held) this.accepted.push(ack).then(resolve, reject);
  }

  private async writeDispatched(items: Dispatching[]): Promise<Array<number | null | Error>> {
    const now = Math.max(this.clock.now(), ...items.map((i) => i.sendAt));
    const runs = items.map(({ run, executorId, startAt }) => ({ runId: run.runId, attempt: run.attempt, executorId, deadlineAt: Math.max(now, startAt) + run.timeoutMs, claiming: run.unclaimed }));
    // A wake-up's run may be due a little later than this node's clock (RunClaims.readNamed) and is sent ahead of it to an executor that starts it then.
    const claimDueBefore = Math.max(now, ...items.filter((i) => i.run.unclaimed).map((i) => i.run.dueAt));
    let moved: Set<number>;
    try {
      moved = await autocommitted(this.dataSource, (em) => markRunsDispatched(em, { nodeId: this.config.nodeId, now, runs, leaseUntil: claimLeaseUntil(now, this.config.leaseMs), claimDueBefore }));
    } catch (err) {
      const outcomes = await this.readBack(runs, now).catch(() => {
        throw err;
      });
      const marked = [...outcomes.values()].filter((o) => o === 'MARKED').length;
      this.logger.warn(`DISPATCHED mark of ${runs.length} run(s) had no answer (${(err as Error).message}): read back, ${marked} marked, to be sent`);
      // Runs the mark did not move are still this node's: the error goes to them, and the
      // dispatcher gives them back (or keeps them to try again).
      return items.map(({ run }) => {
        const outcome = outcomes.get(run.runId);
        return outcome === 'NOT_MARKED' ? (err as Error) : outcome === 'MARKED' ? now : null;
      });
    }
    return items.map(({ run }) => (moved.has(run.runId) ? now : null));
  }

  /**
   * Which runs a mark without an answer moved. The database may be failing over (a new writer is
   * ready 1–3 s after the old one died, docs/OPERATIONS.md), so the read is tried for up to ~6 s
   * before the mark is given up as failed.
   */
  private async readBack(runs: ReadonlyArray<{ runId: number; attempt: number }>, markedAt: number): Promise<Map<number, MarkOutcome>> {
    for (let tried = 0; ; tried++) {
      try {
        return await autocommitted(this.dataSource, (em) => readBackDispatchMarks(em, { nodeId: this.config.nodeId, markedAt, runs }));
      } catch (err) {
        if (tried === READ_BACK_PAUSES_MS.length) throw err;
        await delay(READ_BACK_PAUSES_MS[tried]);
      }
    }
  }
}

/** Pauses between the tries to read back an unanswered DISPATCHED mark. */
const READ_BACK_PAUSES_MS = [100, 250, 500, 1_000, 2_000, 2_000];
