import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { admitKeyed, CLOCK, runKeyOf, takeKeyTokens, type Clock } from '@baton/domain';
import {
  admitKeyRuns,
  afterCommit,
  cancelNewKeyRuns,
  cancelOldestKeyRuns,
  countGoingKeyRuns,
  deferRateKeyRuns,
  findKeyConcurrency,
  holdKeyRuns,
  inTransaction,
  lockRunKey,
  releaseHeldKeyRuns,
  storeKeyBucket,
  type ClaimedRunRow,
  type ClaimedRunTask,
  type RunKeyRef,
  type StoredKeyBucket,
} from '@baton/persistence';
import { ClaimSignal } from '../common/claim-signal';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { CancelledRuns } from '../wakeups/cancelled-runs';

type Claimed = { run: ClaimedRunRow; task: ClaimedRunTask | null };

/** Most held runs one release gives places to (a task whose bound was removed frees its held runs over several). */
const MAX_RELEASE = 1000;

/**
 * Rate and concurrency keys at the claim, and places given back when runs end. A keyed task's run
 * that a claim took and that was not admitted yet (run_key NULL) is admitted here, in the claim's
 * transaction, holding its keys' row locks (lockRunKey). A rate key first: the key's token
 * bucket (domain takeKeyTokens, stored on its run_keys row) gives the oldest runs a token each at
 * the instant they are due (a claim takes runs due within its look-ahead; they are sent then), and
 * the others go back PENDING, due when a token will be there for each (deferRateKeyRuns). Then a
 * concurrency key, for the runs that got a token (or have no rate key): its going runs are counted
 * (countGoingKeyRuns, at most `limit` index entries), domain admitKeyed decides, and each run is
 * admitted (run_key set: it goes on), HELD (QUEUE), or CANCELLED (CANCEL_NEW) — CANCEL_OLDEST
 * cancels the key's oldest going runs instead, whose executors are asked to abort once committed.
 * No lock wider than one key's row is taken: other keys and tenants never wait. A shard never
 * needs admitting: its fan-out run was.
 *
 * `release` gives the places of a key that runs have left to its oldest held runs (HELD →
 * PENDING, admitted already) and wakes this node's claim for them: called when a keyed run ended
 * (CallbacksService; the watchdog's timeouts and reconciliation), and by the held-keys sweep for
 * every other way a run can end.
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
    const rated = groupByKey(keyed.filter((c) => c.task!.rateLimit !== null), (task) => task.rateLimit!.key);
    const bounded = groupByKey(keyed.filter((c) => c.task!.concurrency !== null), (task) => task.concurrency!.key);
    // Every key row this admission needs, locked first and in one order by every engine: two
    // claims holding several keys never deadlock (a rate key and a concurrency key may share a row).
    const buckets = new Map<string, StoredKeyBucket | null>();
    for (const id of [...new Set([...rated.keys(), ...bounded.keys()])].sort()) buckets.set(id, await lockRunKey(em, (rated.get(id) ?? bounded.get(id))!.ref, now));
    const owner = this.config.nodeId;
    const passed = new Set<number>();
    for (const [id, { ref, runs }] of rated) {
      const rate = runs[0].task!.rateLimit!;
      const stored = buckets.get(id) ?? null;
      let bucket = stored && { tokens: stored.tokensMilli / 1000, at: stored.refilledAt };
      let waitFrom: number | null = null;
      const waiting: Array<{ id: number; dueAt: number }> = [];
      for (const { run } of runs) {
        if (waitFrom !== null) {
          waiting.push({ id: run.id, dueAt: waitFrom + waiting.length * Math.ceil(1000 / rate.perSecond) });
          continue;
        }
        // A token for the instant the run is due at (claims look ahead), never before the bucket's last take: the bucket's time only moves on.
        const take = takeKeyTokens(bucket, rate, 1, Math.max(now, run.dueAt, bucket?.at ?? 0));
        bucket = take.bucket;
        if (take.taken === 1) passed.add(run.id);
        else {
          waitFrom = take.nextAt;
          waiting.push({ id: run.id, dueAt: take.nextAt });
        }
      }
      if (bucket) await storeKeyBucket(em, ref, { tokensMilli: Math.floor(bucket.tokens * 1000 + 1e-6), refilledAt: bucket.at });
      await deferRateKeyRuns(em, { runs: waiting, owner, now, reason: `Waiting for a token of its rate key '${ref.key}' (rateLimit ${rate.perSecond}/s, burst ${rate.burst})` });
      // Due within the look-ahead, they are claimed again at once (and take their tokens for their instants), not at the next poll.
      if (waiting.length > 0) afterCommit(em, () => this.signal.due(ref.tenantId));
    }
    const admitted = new Set<number>();
    const aborts = new Map<string, number[]>();
    for (const { ref, runs } of bounded.values()) {
      const going = runs.filter(({ run, task }) => task!.rateLimit === null || passed.has(run.id)).map((c) => c.run.id);
      if (going.length === 0) continue;
      const bound = runs[0].task!.concurrency!;
      const decision = admitKeyed({ limit: bound.limit, onLimit: bound.onLimit, going: await countGoingKeyRuns(em, ref), claimed: going });
      await admitKeyRuns(em, { ids: decision.admit, key: ref.key, owner, now });
      await holdKeyRuns(em, { ids: decision.hold, key: ref.key, owner, now });
      await cancelNewKeyRuns(em, { ids: decision.cancel, key: ref.key, owner, now, reason: `Cancelled: ${bound.limit} run(s) of key '${ref.key}' already going (concurrency onLimit ${bound.onLimit})` });
      const oldest = await cancelOldestKeyRuns(em, { ...ref, count: decision.cancelOldest, except: decision.admit, now, reason: `Cancelled: a newer run of key '${ref.key}' took its place (concurrency onLimit CANCEL_OLDEST)` });
      const sent = oldest.filter((o) => o.sent).map((o) => o.id);
      if (sent.length > 0) aborts.set(ref.tenantId, [...(aborts.get(ref.tenantId) ?? []), ...sent]);
      for (const runId of decision.admit) admitted.add(runId);
    }
    // A run of a task bounded by rate alone is marked as through (run_key: its rate key), so a
    // later claim of it — a retry, a takeover — takes no second token.
    for (const { ref, runs } of rated.values()) {
      const through = runs.filter(({ run, task }) => task!.concurrency === null && passed.has(run.id)).map((c) => c.run.id);
      await admitKeyRuns(em, { ids: through, key: ref.key, owner, now });
      for (const runId of through) admitted.add(runId);
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
        await lockRunKey(em, ref, now);
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

/** A claimed run of a keyed task not admitted yet (shards never: their fan-out run was admitted). */
function needsAdmission(c: Claimed): boolean {
  return c.task !== null && (c.task.concurrency !== null || c.task.rateLimit !== null) && (c.run.runKey ?? null) === null && c.run.cause !== 'SHARD';
}

/** Claimed runs by key (`path` picks the task's key path), each key's runs oldest first; the map's ids sort in lock order. */
function groupByKey(claimed: readonly Claimed[], path: (task: ClaimedRunTask) => string): Map<string, { ref: RunKeyRef; runs: Claimed[] }> {
  const groups = new Map<string, { ref: RunKeyRef; runs: Claimed[] }>();
  for (const c of claimed) {
    const ref = { tenantId: c.run.tenantId, taskId: c.run.taskId, key: runKeyOf(c.run.params, path(c.task!)) };
    const id = JSON.stringify([ref.tenantId, ref.taskId, ref.key]);
    const group = groups.get(id) ?? { ref, runs: [] };
    group.runs.push(c);
    groups.set(id, group);
  }
  for (const group of groups.values()) group.runs.sort((a, b) => a.run.dueAt - b.run.dueAt || a.run.id - b.run.id);
  return groups;
}
