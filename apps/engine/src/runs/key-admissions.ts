import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { admitKeyed, CLOCK, keyLabel, keyScope, releaseKeyed, runKeyOf, scopeTask, takeKeyTokens, type Clock, type KeyConcurrency, type KeyRateLimit } from '@baton/domain';
import {
  admitKeyRuns,
  afterCommit,
  cancelNewKeyRuns,
  cancelOldestKeyRuns,
  countGoingKeyRuns,
  deferRateKeyRuns,
  findHeldKeyRuns,
  findKeyConcurrencies,
  holdKeyRuns,
  inTransaction,
  lockRunKey,
  readReleasedRuns,
  releaseHeldKeyRuns,
  storeKeyBucket,
  type ClaimedRunRow,
  type ClaimedRunTask,
  type RunKeyRef,
  type StoredKeyBucket,
} from '@baton/persistence';
import { ClaimSignal } from '../common/claim-signal';
import { WokenRows } from '../common/woken-rows';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { CancelledRuns } from '../wakeups/cancelled-runs';

type Claimed = { run: ClaimedRunRow; task: ClaimedRunTask | null };
/** One key's claimed runs. */
type KeyRuns = { ref: RunKeyRef; runs: Claimed[] };

/** Most held runs one release gives places to (a task whose bound was removed frees its held runs over several). */
const MAX_RELEASE = 1000;
/** Held runs read at once by a release, at least: a key's end frees a place or a few, and a page of this many finds them in one read. */
const RELEASE_PAGE = 16;

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
 * A key is its task's own, or its key group's (domain keyScope) when the bound names a `group`:
 * then its runs of every task of the group are counted, held and cancelled together, and each run
 * is admitted by its own task's limit and onLimit, and takes its token at its own task's rate.
 * No lock wider than one key's row is taken: other keys, groups and tenants never wait. A shard
 * never needs admitting: its fan-out run was.
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
    private readonly woken: WokenRows,
  ) {}

  /**
   * The claimed runs that go on to dispatch (admitted, or needing no admission), in the caller's
   * transaction when it has one. `claimedBy`: the claim of these runs, issued in that transaction
   * just before (RunClaims: claimUnadmittedRuns, sent ahead): awaited with the keys' locks, whose
   * packet it rides in, and nothing is decided when it rejects.
   */
  async admit(em: EntityManager, claimed: readonly Claimed[], now: number, claimedBy?: Promise<unknown>): Promise<Claimed[]> {
    const keyed = claimed.filter((c) => needsAdmission(c));
    if (keyed.length === 0) return [...claimed];
    const admitted = em.queryRunner?.isTransactionActive
      ? await this.admitKeyed(em, keyed, now, claimedBy)
      : await inTransaction(this.dataSource, (tx) => this.admitKeyed(tx, keyed, now), { isolation: 'READ COMMITTED' });
    return claimed.filter((c) => !needsAdmission(c) || admitted.has(c.run.id));
  }

  private async admitKeyed(em: EntityManager, keyed: readonly Claimed[], now: number, claimedBy?: Promise<unknown>): Promise<Set<number>> {
    const rated = groupByKey(keyed.filter((c) => c.task!.rateLimit !== null), (task) => task.rateLimit!);
    const bounded = groupByKey(keyed.filter((c) => c.task!.concurrency !== null), (task) => task.concurrency!);
    // Every key row this admission needs, locked first and in one order by every engine: two
    // claims holding several keys never deadlock (a rate key and a concurrency key may share a row).
    // Issued together, they go in one packet (lockRunKey is sent ahead), run in that order, each
    // concurrency key's count of going runs behind the locks: the tokens taken meanwhile admit
    // nothing, so the counts are those the bounds see.
    const order = [...new Set([...rated.keys(), ...bounded.keys()])].sort();
    const [locked, counted] = await Promise.all([
      Promise.all(order.map((id) => lockRunKey(em, (rated.get(id) ?? bounded.get(id))!.ref, now))),
      Promise.all([...bounded.values()].map(({ ref }) => countGoingKeyRuns(em, ref))),
      claimedBy,
    ]);
    const buckets = new Map<string, StoredKeyBucket | null>(order.map((id, i) => [id, locked[i]]));
    const passed = new Set<number>();
    for (const [id, runs] of rated) for (const runId of await this.takeTokens(em, runs, buckets.get(id) ?? null, now)) passed.add(runId);
    const admitted = new Set<number>();
    const aborts = new Map<string, number[]>();
    let i = 0;
    for (const runs of bounded.values()) await this.bound(em, runs, counted[i++], passed, now, { admitted, aborts });
    // A run of a task bounded by rate alone is marked as through (run_key: its rate key; no scope:
    // it holds no place), so a later claim of it — a retry, a takeover — takes no second token.
    for (const { ref, runs } of rated.values()) {
      const through = runs.filter(({ run, task }) => task!.concurrency === null && passed.has(run.id)).map((c) => c.run.id);
      await admitKeyRuns(em, { ids: through, key: ref.key, scope: null, owner: this.config.nodeId, now });
      for (const runId of through) admitted.add(runId);
    }
    if (aborts.size > 0) afterCommit(em, () => this.abort(aborts));
    return admitted;
  }

  /**
   * A rate key's runs take its tokens, oldest first, each at its own task's rate and burst (a key
   * group's tasks may state different ones; the stored bucket follows the last that took). From the
   * first that finds none on, they go back PENDING, due at the key's next tokens. Returns the runs
   * that got one.
   */
  private async takeTokens(em: EntityManager, { ref, runs }: KeyRuns, stored: StoredKeyBucket | null, now: number): Promise<number[]> {
    let bucket = stored && { tokens: stored.tokensMilli / 1000, at: stored.refilledAt };
    let rulesTask = runs[0].run.taskId;
    const passed: number[] = [];
    let waitFrom: number | null = null;
    let waited = 0;
    const waiting = new Map<string, Array<{ id: number; dueAt: number }>>();
    for (const { run, task } of runs) {
      const rate = task!.rateLimit!;
      if (waitFrom === null) {
        // A token for the instant the run is due at (claims look ahead), never before the bucket's last take: the bucket's time only moves on.
        const take = takeKeyTokens(bucket, rate, 1, Math.max(now, run.dueAt, bucket?.at ?? 0));
        bucket = take.bucket;
        rulesTask = run.taskId;
        if (take.taken === 1) {
          passed.push(run.id);
          continue;
        }
        waitFrom = take.nextAt;
      }
      const reason = `Waiting for a token of its rate ${keyLabel(ref.scope, ref.key)} (rateLimit ${rate.perSecond}/s, burst ${rate.burst})`;
      waiting.set(reason, [...(waiting.get(reason) ?? []), { id: run.id, dueAt: waitFrom + waited++ * Math.ceil(1000 / rate.perSecond) }]);
    }
    if (bucket) await storeKeyBucket(em, ref, { tokensMilli: Math.floor(bucket.tokens * 1000 + 1e-6), refilledAt: bucket.at }, rulesTask);
    for (const [reason, deferred] of waiting) await deferRateKeyRuns(em, { runs: deferred, owner: this.config.nodeId, now, reason });
    // Due within the look-ahead, they are claimed again at once (and take their tokens for their instants), not at the next poll.
    if (waited > 0) afterCommit(em, () => this.signal.due(ref.tenantId));
    return passed;
  }

  /**
   * A concurrency key's runs that passed their rate key (or have none) are admitted, held or
   * cancelled (domain admitKeyed) against the key's `going` runs (counted holding its lock) — of a key group's key, its tasks'
   * runs together: each task's runs in turn (the task with the oldest run first) by its own limit
   * and onLimit, the count carried from one to the next. Adds the admitted runs to `out.admitted`
   * and the sent runs CANCEL_OLDEST cancelled to `out.aborts`.
   */
  private async bound(em: EntityManager, { ref, runs }: KeyRuns, counted: number, passed: ReadonlySet<number>, now: number, out: { admitted: Set<number>; aborts: Map<string, number[]> }): Promise<void> {
    const passing = runs.filter(({ run, task }) => task!.rateLimit === null || passed.has(run.id));
    if (passing.length === 0) return;
    const owner = this.config.nodeId;
    const key = keyLabel(ref.scope, ref.key);
    let going = counted;
    for (const own of byTask(passing)) {
      const bound = own[0].task!.concurrency!;
      const decision = admitKeyed({ limit: bound.limit, onLimit: bound.onLimit, going, claimed: own.map((c) => c.run.id) });
      await admitKeyRuns(em, { ids: decision.admit, key: ref.key, scope: ref.scope, owner, now });
      await holdKeyRuns(em, { ids: decision.hold, key: ref.key, scope: ref.scope, owner, now });
      await cancelNewKeyRuns(em, { ids: decision.cancel, key: ref.key, scope: ref.scope, owner, now, reason: `Cancelled: ${bound.limit} run(s) of ${key} already going (concurrency onLimit ${bound.onLimit})` });
      const oldest = await cancelOldestKeyRuns(em, { ...ref, count: decision.cancelOldest, except: decision.admit, now, reason: `Cancelled: a newer run of ${key} took its place (concurrency onLimit CANCEL_OLDEST)` });
      const sent = oldest.filter((o) => o.sent).map((o) => o.id);
      if (sent.length > 0) out.aborts.set(ref.tenantId, [...(out.aborts.get(ref.tenantId) ?? []), ...sent]);
      // The group's oldest going run may be one this claim admitted for another of its tasks: cancelled, it is not sent.
      for (const o of oldest) out.admitted.delete(o.id);
      for (const runId of decision.admit) out.admitted.add(runId);
      going += decision.admit.length - oldest.length;
    }
  }

  /** Asks the executors of the runs CANCEL_OLDEST cancelled to abort them. */
  private abort(aborts: ReadonlyMap<string, number[]>): void {
    for (const [tenantId, runIds] of aborts) {
      this.cancelled.abort(tenantId, runIds).catch((err: Error) => this.logger.warn(`aborting runs cancelled by their key failed: ${err.message}`, { tenantId }));
    }
  }

  /**
   * The key's free places to its oldest held runs (domain releaseKeyed: each against its own
   * task's limit, read now — a task whose limit was raised frees more, one whose bound was removed,
   * moved to another group or deleted frees its runs at once), in a transaction of its own holding
   * the key's lock; wakes a claim for them. Held runs are read a page at a time from the oldest, at
   * most MAX_RELEASE.
   *
   * The lock, the count, the first page and (a task's own key) the task's bound go in one packet:
   * a run of a flooded `limit: 1` key hands its place on in 3 round trips (that packet, the UPDATE,
   * the COMMIT) instead of 7 — each ~0.2 ms of CPU a side, and under load milliseconds of waiting,
   * on the way of every next run of the key. The released runs' rows ride with the COMMIT
   * (readReleasedRuns) and are left to the claim it wakes (WokenRows), which sends them out
   * unclaimed without reading them back.
   */
  async release(ref: RunKeyRef): Promise<number> {
    const now = this.clock.now();
    const ownTask = scopeTask(ref.scope);
    const { ids: released, rows } = await inTransaction(
      this.dataSource,
      async (em) => {
        let page = RELEASE_PAGE;
        const [, counted, firstPage, ownBound] = await Promise.all([
          lockRunKey(em, ref, now),
          countGoingKeyRuns(em, ref),
          findHeldKeyRuns(em, { ...ref, afterId: 0, limit: page }),
          findKeyConcurrencies(em, ownTask === null ? [] : [ownTask]),
        ]);
        let [going, held] = [counted, firstPage];
        const limits = new Map<number, number | null>();
        const limitOf = (taskId: number, bounds: ReadonlyMap<number, KeyConcurrency>) => {
          const bound = bounds.get(taskId);
          limits.set(taskId, bound !== undefined && keyScope(taskId, bound.group) === ref.scope ? bound.limit : null);
        };
        if (ownTask !== null) limitOf(ownTask, ownBound);
        const ids: number[] = [];
        let widest = 0;
        for (;;) {
          const unread = [...new Set(held.map((h) => h.taskId))].filter((taskId) => !limits.has(taskId));
          const bounds = await findKeyConcurrencies(em, unread);
          for (const taskId of unread) limitOf(taskId, bounds);
          const step = releaseKeyed(going, held.map((h) => ({ run: h.id, limit: limits.get(h.taskId)! })));
          ids.push(...step.release);
          going = step.going;
          widest = Math.max(widest, ...held.map((h) => limits.get(h.taskId) ?? MAX_RELEASE));
          if (step.full || held.length < page || ids.length >= MAX_RELEASE) break;
          page = Math.min(MAX_RELEASE - ids.length, Math.max(RELEASE_PAGE, widest - going));
          held = await findHeldKeyRuns(em, { ...ref, afterId: held[held.length - 1].id, limit: page });
        }
        await releaseHeldKeyRuns(em, { ids, now });
        // Not awaited here: the read rides with the COMMIT. A failed one fails the COMMIT, which is thrown; this promise is then let go.
        const read = readReleasedRuns(em, ids);
        read.catch(() => undefined);
        return { ids, rows: read };
      },
      { isolation: 'READ COMMITTED' },
    );
    if (released.length > 0) {
      this.woken.put(ref.tenantId, await rows);
      this.signal.due(ref.tenantId, released);
    }
    return released.length;
  }
}

/** A claimed run of a keyed task not admitted yet (shards never: their fan-out run was admitted). */
export function needsAdmission(c: Claimed): boolean {
  return c.task !== null && (c.task.concurrency !== null || c.task.rateLimit !== null) && (c.run.runKey ?? null) === null && c.run.cause !== 'SHARD';
}

/** Claimed runs by key (`bound` picks the task's bound: its key path and group), each key's runs oldest first; the map's ids sort in lock order. */
function groupByKey(claimed: readonly Claimed[], bound: (task: ClaimedRunTask) => KeyConcurrency | KeyRateLimit): Map<string, KeyRuns> {
  const groups = new Map<string, KeyRuns>();
  for (const c of claimed) {
    const { key, group } = bound(c.task!);
    const ref = { tenantId: c.run.tenantId, scope: keyScope(c.run.taskId, group), key: runKeyOf(c.run.params, key) };
    const id = JSON.stringify([ref.tenantId, ref.scope, ref.key]);
    const runs = groups.get(id) ?? { ref, runs: [] };
    runs.runs.push(c);
    groups.set(id, runs);
  }
  for (const runs of groups.values()) runs.runs.sort((a, b) => a.run.dueAt - b.run.dueAt || a.run.id - b.run.id);
  return groups;
}

/** A key's runs (oldest first) by task, the task with the oldest run first, each task's runs in their order. */
function byTask(runs: readonly Claimed[]): Claimed[][] {
  const tasks = new Map<number, Claimed[]>();
  for (const c of runs) tasks.set(c.run.taskId, [...(tasks.get(c.run.taskId) ?? []), c]);
  return [...tasks.values()];
}
