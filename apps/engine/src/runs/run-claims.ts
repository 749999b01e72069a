import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { tracingOn } from '@baton/tracing';
import { claimLeaseUntil } from '@baton/domain';
import { cancelOrphanedRuns, claimDueRuns, claimNamedRuns, claimUnadmittedRuns, findClaimedRunTasks, inTransaction, readNamedRuns, releaseRuns, type ClaimedRunRow, type ClaimedRunTask, type LeasedRun, type NamedRun, type TenantTake } from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';
import { WokenRows } from '../common/woken-rows';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { recordClaims } from '../tracing/run-spans';
import { KeyAdmissions, needsAdmission } from './key-admissions';
import { toClaimedRun } from './to-claimed-run';

/**
 * A run's entry into this node's hands and its way back out without being sent: due runs
 * CLAIMED under a lease (claimDueRuns, one statement for a whole claim turn; claimNamedRuns for
 * the runs a wake-up names), and CLAIMED runs
 * given back as PENDING (releaseRuns). Both in the caller's transaction, both guarded on
 * `claimed_by = this node` for the way back. A run whose task was deleted between its creation
 * and its claim is cancelled at the claim: there is no app or handler to send it to.
 */
@Injectable()
export class RunClaims {
  private readonly logger = new Logger('RunClaims');
  private lastLease = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly keys: KeyAdmissions,
    /** The rows the console's wake-ups carried; absent (a test's claims), named runs are always read. */
    @Optional() private readonly woken?: WokenRows,
  ) {}

  /** Claims up to each take's limit of its tenant's runs due before `dueBefore`; returns them joined with their tasks. */
  async claim(em: EntityManager, takes: readonly TenantTake[], at: { dueBefore: number; now: number }): Promise<ClaimedRun[]> {
    const rows = await claimDueRuns(em, { takes, dueBefore: at.dueBefore, owner: this.config.nodeId, leaseUntil: this.nextLease(at.now), now: at.now });
    if (rows.length === 0) return [];
    const tasks = await findClaimedRunTasks(em, rows.map((r) => r.taskId));
    return this.traced(await this.withTasks(em, rows.map((run) => ({ run, task: tasks.get(run.taskId) ?? null })), at.now), at.now);
  }

  /**
   * Claims the runs a wake-up named, those still claimable; returns them joined with their tasks.
   * `unadmitted`: rows readNamed gave for some of them, runs a key must admit: claimed and
   * admitted in one transaction (claimUnadmittedRuns); the others, and those when another claim
   * took one of them first, by claimNamedRuns (no transaction), reading back which it got.
   */
  async claimNamed(
    em: EntityManager,
    named: { ids: readonly number[]; tenantId: string; engineGroup: string; unadmitted?: readonly NamedRun[] },
    at: { dueBefore: number; now: number },
  ): Promise<ClaimedRun[]> {
    const { ids, unadmitted = [], ...where } = named;
    const admitted = unadmitted.length > 0 ? await this.claimAndAdmit(where, unadmitted, at) : null;
    const taken = new Set(admitted ? unadmitted.map(({ run }) => run.id) : []);
    const rest = taken.size > 0 ? ids.filter((id) => !taken.has(id)) : ids;
    return [...(admitted ?? []), ...(rest.length > 0 ? await this.claimByIds(em, { ...where, ids: rest }, at) : [])];
  }

  /**
   * Keyed runs whose rows this node has, claimed and admitted to their keys in one transaction of
   * two round trips (the claim rides in the packet of the keys' locks, the admission's writes
   * with the COMMIT); null, rolled back, when another claim took one of them first.
   */
  private async claimAndAdmit(where: { tenantId: string; engineGroup: string }, rows: readonly NamedRun[], at: { now: number }): Promise<ClaimedRun[] | null> {
    const leaseUntil = this.nextLease(at.now);
    // The rows are this node's to hold from here: each takes the claim's lease (readNamed's have none).
    for (const { run } of rows) run.leaseUntil = leaseUntil;
    const overtaken = new Error('another claim took a named run first');
    try {
      const going = await inTransaction(
        this.dataSource,
        (tx) => {
          const claim = claimUnadmittedRuns(tx, { ...where, runs: rows.map(({ run }) => run), owner: this.config.nodeId, leaseUntil, now: at.now }).then((moved) => {
            if (moved !== rows.length) throw overtaken;
          });
          // Awaited by the admission with the keys' locks; an admission that fails before that leaves it to be rejected unread.
          claim.catch(() => undefined);
          return this.keys.admit(tx, rows, at.now, claim);
        },
        { isolation: 'READ COMMITTED' },
      );
      return this.traced(going.flatMap((c) => (c.task ? [toClaimedRun(c.run, c.task)] : [])), at.now);
    } catch (err) {
      if (err === overtaken) return null;
      throw err;
    }
  }

  /** Claims runs by id (claimNamedRuns: no transaction), then admits those a key must admit. */
  private async claimByIds(em: EntityManager, named: { ids: readonly number[]; tenantId: string; engineGroup: string }, at: { dueBefore: number; now: number }): Promise<ClaimedRun[]> {
    const claimed = await claimNamedRuns(em, { ...named, dueBefore: at.dueBefore, owner: this.config.nodeId, leaseUntil: this.nextLease(at.now), now: at.now });
    try {
      return this.traced(await this.withTasks(em, claimed, at.now), at.now);
    } catch (err) {
      // Claimed (committed: no transaction) but not handed over — a key's admission failed: back to
      // PENDING now, for the claim turn the caller kicks, not seconds later as strays
      // (LeaseRenewerService) waiting for a poll after that.
      await this.giveBack(em, claimed.map((c) => c.run.id), at.now).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The runs a wake-up named, as its console committed them when it carried them (WokenRows), else
   * read without claiming them (readNamedRuns: one statement): those that go out as they are —
   * PENDING and due within NAMED_AHEAD_MS of `now`, with nothing to decide at a claim (no key to
   * admit it — none, or admitted already: a key's released run —, no concurrency policy, no
   * fan-out; not a shard) — come back `unclaimed`, their DISPATCHED mark to claim them (one row
   * write instead of a claim's and a mark's; a carried run no longer PENDING is left there). The
   * DueQueue holds each until its instant by this node's clock, as any run. The other ids (another
   * state, a key to admit, a policy, a deleted task, not found) are for claimNamed, with
   * `unadmitted`: the rows of those a key must admit and nothing else decide, which it claims and
   * admits in one transaction; `admitting` says whether that claim may admit some of them to their
   * keys (a keyed run not admitted yet, or one not read here): such claims are taken in the order
   * their wake-ups came (ClaimerService). `at.unclaimed: false` (the caller would hold them behind
   * a line of the tenant's runs, ClaimerService.readNamed): none goes out unclaimed, every id is
   * for claimNamed.
   */
  async readNamed(
    em: EntityManager,
    named: { ids: readonly number[]; tenantId: string; engineGroup: string },
    at: { now: number; unclaimed?: boolean },
  ): Promise<{ ready: ClaimedRun[]; rest: number[]; unadmitted: NamedRun[]; admitting: boolean }> {
    const { given, missing } = this.woken ? this.woken.take(named.tenantId, named.ids) : { given: [], missing: named.ids };
    const dueBefore = at.now + NAMED_AHEAD_MS;
    const rows = [...given.filter(({ run }) => run.engineGroup === named.engineGroup && run.dueAt <= dueBefore), ...(await readNamedRuns(em, { ...named, ids: missing, dueBefore }))];
    const ready: ClaimedRun[] = [];
    const unadmitted: NamedRun[] = [];
    for (const { run, task } of rows) {
      if (task === null || task.concurrencyPolicy !== 'ALLOW' || task.fanOut.mode !== 'SINGLE' || run.shard) continue;
      // A keyed task's run its key admitted already (released by the key's end, a retry) has nothing left to decide.
      if (needsAdmission({ run, task })) unadmitted.push({ run, task });
      // Object.assign, not `{ ...toClaimedRun(…), unclaimed }`: V8 (Node 20) copies a 31-key object on a slow path, 4.9 µs a run against 0.2.
      else if (run.instantAt <= dueBefore && at.unclaimed !== false) ready.push(Object.assign(toClaimedRun(run, task), { unclaimed: true }));
    }
    const taken = new Set(ready.map((r) => r.runId));
    const rest = named.ids.filter((id) => !taken.has(id));
    const read = new Map(rows.map((row) => [row.run.id, row]));
    const admitting = rest.some((id) => !read.has(id) || needsAdmission(read.get(id)!));
    return { ready: this.traced(ready, at.now), rest, unadmitted, admitting };
  }

  /** The claimed runs, each with its claim span when tracing is on. */
  private traced(runs: ClaimedRun[], startedAt: number): ClaimedRun[] {
    if (tracingOn() && runs.length > 0) recordClaims(runs, startedAt, this.config.nodeId);
    return runs;
  }

  /**
   * Claimed runs with their tasks; those whose task is gone are cancelled: there is no app or
   * handler to send them to. Runs of keyed tasks go on only when their key admits them
   * (KeyAdmissions: the others are HELD or CANCELLED there, in the same transaction).
   */
  private async withTasks(em: EntityManager, claimed: ReadonlyArray<{ run: ClaimedRunRow; task: ClaimedRunTask | null }>, now: number): Promise<ClaimedRun[]> {
    const orphans = claimed.filter((c) => c.task === null).map((c) => c.run.id);
    if (orphans.length > 0) {
      await cancelOrphanedRuns(em, orphans, this.config.nodeId, now);
      this.logger.warn(`cancelled ${orphans.length} claimed run(s) whose task was deleted: ${orphans.join(', ')}`);
    }
    const going = await this.keys.admit(em, claimed, now);
    return going.flatMap((c) => (c.task ? [toClaimedRun(c.run, c.task)] : []));
  }

  /**
   * The lease of a new claim, later than every lease this node wrote before (by 1 ms when the
   * clock has not moved): claimNamedRuns reads its rows back by it, so two claims of the same
   * millisecond must not share one.
   */
  private nextLease(now: number): number {
    this.lastLease = Math.max(claimLeaseUntil(now, this.config.leaseMs), this.lastLease + 1);
    return this.lastLease;
  }

  /** CLAIMED → PENDING for runs this node holds and will not send; returns how many moved. */
  giveBack(em: EntityManager, runIds: readonly number[], now: number): Promise<number> {
    return releaseRuns(em, { ids: runIds, from: 'CLAIMED', owner: this.config.nodeId, now });
  }

  /**
   * DISPATCHED → PENDING for runs written already sent (ClaimedRun.markedAt) that this node holds
   * and will not send (a graceful stop): their executor is kept, as a takeover keeps it — the next
   * claim sends them there, which never got them. Returns how many moved.
   */
  giveBackUnsent(em: EntityManager, runIds: readonly number[], now: number): Promise<number> {
    return releaseRuns(em, { ids: runIds, from: 'DISPATCHED', owner: this.config.nodeId, now });
  }

  /**
   * Strays — runs this node holds in the database but nowhere in memory (LeaseRenewerService) —
   * back to PENDING as a dead node's are at a takeover: CLAIMED ones, and DISPATCHED ones with
   * their executor kept (the next claim sends them there again; it de-duplicates). Each move is
   * guarded on the state seen and this node as the holder; returns how many moved.
   */
  async giveBackStrays(em: EntityManager, strays: readonly LeasedRun[], now: number): Promise<number> {
    const owner = this.config.nodeId;
    let moved = 0;
    for (const from of ['CLAIMED', 'DISPATCHED'] as const) {
      const ids = strays.filter((r) => r.state === from).map((r) => r.id);
      if (ids.length > 0) moved += await releaseRuns(em, { ids, from, owner, now });
    }
    return moved;
  }
}

/**
 * How far ahead of this node's clock a named run may be due and still go out unclaimed, its mark
 * its claim. A console stamps a submitted run with its own clock, an engine schedules on the
 * database's (OffsetClock): a run named at once by its wake-up (a node's console calls its engine
 * in the same turn) was, by the engine's clock, due up to the offset's error later, ~1 ms here,
 * and 45 % of such runs took the claim's two statements and a CLAIMED write instead (bench
 * on-demand --baton-nodes with BATON_WAKE_FLOOR_MS=0, 2026-12-06). Well inside the 250 ms a claim
 * turn leaves a console's new runs to their wake-up (claimer.service.ts), so no turn claims one
 * meanwhile.
 */
export const NAMED_AHEAD_MS = 50;
