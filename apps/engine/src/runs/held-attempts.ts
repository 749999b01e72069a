import { Injectable } from '@nestjs/common';
import type { RunAttemptRow } from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';

/** Most attempts held at once: past it the oldest go (their callbacks read their runs). ~1 KB each. */
export const MAX_HELD_ATTEMPTS = 20_000;
/** An attempt held longer than this goes: a long handler's callback reads its run, which costs it nothing it would notice. */
export const HELD_ATTEMPT_MS = 10 * 60_000;

/**
 * What this engine knew of the attempts its executors accepted, kept until their callbacks: an
 * executor calls back the engine that sent the run, and that engine then ends the attempt from
 * what it knew instead of reading the run first (findRunsForCallback: one statement a callback
 * batch; with it a trigger written alone cost the engines 7.1 statements, 6.2 without; docs/BENCHMARKS.md).
 *
 * It is a decision aid, as that read is: the write that ends the attempt is guarded on the run's
 * state and attempt, so if the run was cancelled, timed out or taken over meanwhile it matches
 * nothing, and the callback is judged again from a fresh read (CallbacksService). The task's
 * retry policy, alarm types and DAG children are those of the claim, not of the callback: an edge
 * or a policy saved while the run was going applies from the next run, as for a run read a moment
 * earlier. Not held: runs of keyed tasks (their end frees a place that only their row names), and
 * an attempt whose callback names another executor than the one that accepted it.
 */
@Injectable()
export class HeldAttempts {
  /** By run id, oldest first (a Map keeps insertion order). */
  private readonly held = new Map<number, { row: RunAttemptRow; at: number }>();

  /** `run`'s attempt was accepted by `executor` at `now`. */
  hold(run: ClaimedRun, executor: { executorId: number; url: string }, now: number): void {
    if (run.keyed) return;
    this.held.delete(run.runId);
    this.held.set(run.runId, { row: attemptRow(run, executor), at: now });
    for (const [runId, entry] of this.held) {
      if (this.held.size <= MAX_HELD_ATTEMPTS && entry.at > now - HELD_ATTEMPT_MS) break;
      this.held.delete(runId);
    }
  }

  /** The attempt a callback is about, as this engine sent it, once (null: not held here, or not that attempt of that tenant's run). */
  take(cb: { runId: number; attempt: number; tenantId: string; executorId?: number }): RunAttemptRow | null {
    const entry = this.held.get(cb.runId);
    if (!entry) return null;
    this.held.delete(cb.runId);
    const { row } = entry;
    if (row.attempt !== cb.attempt || row.tenantId !== cb.tenantId) return null;
    if (cb.executorId !== undefined && cb.executorId !== row.executorId) return null;
    return row;
  }

  /** How many are held (metrics, tests). */
  get size(): number {
    return this.held.size;
  }
}

/** The run as findRunsForCallback would read it just after the executor accepted it. */
function attemptRow(run: ClaimedRun, executor: { executorId: number; url: string }): RunAttemptRow {
  return {
    runId: run.runId,
    tenantId: run.tenantId,
    taskId: run.taskId,
    taskName: run.taskName,
    state: 'ACCEPTED',
    attempt: run.attempt,
    cause: run.cause,
    flowId: run.flowId,
    executorId: executor.executorId,
    executorUrl: executor.url,
    scheduledAt: run.scheduledAt,
    instant: run.instant,
    startedAt: null,
    retry: run.retry,
    alarmTypes: run.alarmTypes,
    alarmSilenceMs: run.alarmSilenceMs,
    followUps: run.followUps,
    shardOf: run.shard?.parentRunId ?? null,
    traceParent: run.traceParent ?? null,
    runKey: null,
    keyScope: null,
    withdrawal: null,
  };
}
