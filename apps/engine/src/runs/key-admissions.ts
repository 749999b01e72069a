import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { admitKeyed, CLOCK, runKeyOf, type Clock, type KeyConcurrency } from '@baton/domain';
import {
  admitKeyRuns,
  afterCommit,
  cancelNewKeyRuns,
  cancelOldestKeyRuns,
  countGoingKeyRuns,
  findKeyConcurrency,
  holdKeyRuns,
  inTransaction,
  lockRunKey,
  releaseHeldKeyRuns,
  type ClaimedRunRow,
  type ClaimedRunTask,
  type RunKeyRef,
} from '@baton/persistence';
import { ClaimSignal } from '../common/claim-signal';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { CancelledRuns } from '../wakeups/cancelled-runs';

type Claimed = { run: ClaimedRunRow; task: ClaimedRunTask | null };

/** Most held runs one release gives places to (a task whose bound was removed frees its held runs over several). */
const MAX_RELEASE = 1000;

/**
 * Concurrency keys at the claim, and places given back when runs end. A keyed task's run that a
 * claim took and that holds no place yet (run_key NULL) is admitted here, in the claim's
 * transaction, holding its key's row lock (lockRunKey): the key's going runs are counted
 * (countGoingKeyRuns, at most `limit` index entries), domain admitKeyed decides, and each run is
 * admitted (run_key set: it goes on), HELD (QUEUE), or CANCELLED (CANCEL_NEW) — CANCEL_OLDEST
 * cancels the key's oldest going runs instead, whose executors are asked to abort once committed.
 * No lock wider than one key's row is taken: other keys and tenants never wait. A shard never
 * needs admitting: its fan-out run was.
 *
 * `release` gives the places of a key that runs have left to its oldest held runs (HELD →
 * PENDING, admitted already) and wakes this node's claim for them: called when a keyed run ended
 * (CallbacksService), and by the held-keys sweep for every other way a run can end.
 */
@Injectable()
export class KeyAdmissions {
  private readonly logger = new Logger('KeyAdmissions');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly signal: ClaimSignal,
    private readonly cancelled: CancelledRuns,
  ) {}

  /** The claimed runs that go on to dispatch (admitted, or needing no admission), in the caller's transaction when it has one. */
  async admit(em: EntityManager, claimed: readonly Claimed[], now: number): Promise<Claimed[]> {
    const keyed = claimed.filter((c) => needsAdmission(c));
    if (keyed.length === 0) return [...claimed];
    const admitted = em.queryRunner?.isTransactionActive
      ? await this.admitKeyed(em, keyed, now)
      : await inTransaction(this.dataSource, (tx) => this.admitKeyed(tx, keyed, now), { isolation: 'READ COMMITTED' });
    return claimed.filter((c) => !needsAdmission(c) || admitted.has(c.run.id));
  }

  private async admitKeyed(em: EntityManager, keyed: readonly Claimed[], now: number): Promise<Set<number>> {
    const groups = new Map<string, { ref: RunKeyRef; bound: KeyConcurrency; runs: ClaimedRunRow[] }>();
    for (const { run, task } of keyed) {
      const bound = (task as ClaimedRunTask).concurrency as KeyConcurrency;
      const ref = { tenantId: run.tenantId, taskId: run.taskId, key: runKeyOf(run.params, bound.key) };
      const id = JSON.stringify([ref.tenantId, ref.taskId, ref.key]);
      const group = groups.get(id) ?? { ref, bound, runs: [] };
      group.runs.push(run);
      groups.set(id, group);
    }
    const owner = this.config.nodeId;
    const admitted = new Set<number>();
    const aborts = new Map<string, number[]>();
    // Keys locked in one order by every engine: two claims holding several keys never deadlock.
    for (const id of [...groups.keys()].sort()) {
      const { ref, bound, runs } = groups.get(id)!;
      runs.sort((a, b) => a.dueAt - b.dueAt || a.id - b.id);
      await lockRunKey(em, ref);
      const going = await countGoingKeyRuns(em, ref);
      const decision = admitKeyed({ limit: bound.limit, onLimit: bound.onLimit, going, claimed: runs.map((r) => r.id) });
      await admitKeyRuns(em, { ids: decision.admit, key: ref.key, owner, now });
      await holdKeyRuns(em, { ids: decision.hold, key: ref.key, owner, now });
      await cancelNewKeyRuns(em, { ids: decision.cancel, key: ref.key, owner, now, reason: `Cancelled: ${bound.limit} run(s) of key '${ref.key}' already going (concurrency onLimit ${bound.onLimit})` });
      const oldest = await cancelOldestKeyRuns(em, { ...ref, count: decision.cancelOldest, except: decision.admit, now, reason: `Cancelled: a newer run of key '${ref.key}' took its place (concurrency onLimit CANCEL_OLDEST)` });
      const sent = oldest.filter((o) => o.sent).map((o) => o.id);
      if (sent.length > 0) aborts.set(ref.tenantId, [...(aborts.get(ref.tenantId) ?? []), ...sent]);
      for (const runId of decision.admit) admitted.add(runId);
    }
    if (aborts.size > 0) afterCommit(em, () => this.abort(aborts));
    return admitted;
  }

  /** Asks the executors of the runs CANCEL_OLDEST cancelled to abort them. */
  private abort(aborts: ReadonlyMap<string, number[]>): void {
    for (const [tenantId, runIds] of aborts) {
      this.cancelled.abort(tenantId, runIds).catch((err: Error) => this.logger.warn(`aborting runs cancelled by their key failed: ${err.message}`, { tenantId }));
    }
  }

  /**
   * The key's free places to its oldest held runs, in a transaction of its own holding the key's
   * lock; wakes a claim for them. The bound is read now: a task whose limit was raised frees more,
   * one whose bound was removed (or that was deleted) frees them all, MAX_RELEASE at a time.
   */
  async release(ref: RunKeyRef): Promise<number> {
    const now = this.clock.now();
    const released = await inTransaction(
      this.dataSource,
      async (em) => {
        await lockRunKey(em, ref);
        const bound = await findKeyConcurrency(em, ref.taskId);
        const free = bound === null ? MAX_RELEASE : Math.min(MAX_RELEASE, bound.limit - (await countGoingKeyRuns(em, ref)));
        return releaseHeldKeyRuns(em, { ...ref, count: free, now });
      },
      { isolation: 'READ COMMITTED' },
    );
    if (released.length > 0) this.signal.due(ref.tenantId, released);
    return released.length;
  }
}

/** A claimed run of a keyed task that holds no place of its key yet (shards never: their fan-out run was admitted). */
function needsAdmission(c: Claimed): boolean {
  return c.task !== null && c.task.concurrency !== null && (c.run.runKey ?? null) === null && c.run.cause !== 'SHARD';
}
