import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, Clock } from '@baton/domain';
import { OneAtATime } from '@baton/scheduling';
import { countTenantBacklog, findTenantsWithDue, inTransaction, type ClaimTenantRow, type NamedRun, type TenantTake } from '@baton/persistence';
import type { ClaimedRun } from '../common/claimed-run';
import { ENGINE_CONFIG, EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { PeriodicLoop } from '../common/periodic-loop';
import { GroupPeers } from '../common/group-peers';
import { ClaimSignal } from '../common/claim-signal';
import { ClockWatch } from '../common/clock-watch';
import { NodeLiveness } from '../common/node-liveness';
import { ClaimTenants } from './claim-tenants';
import { TenantPace } from './tenant-pace';
import { budgetTable, idleBudget, planClaimTurn, TASK_OVERDRAFT, TENANTS_PER_TURN, type TenantLoad } from './claim-turn';
import { DUE_QUEUE, DueQueuePort } from './due-queue-port';
import { RunClaims } from '../runs/run-claims';
import { WokenRows } from '../common/woken-rows';

/** What one claim turn did. */
export interface ClaimResult {
  claimed: number;
  /** Some tenant got its whole allotment, or tenants were left for the next turn: claim again at once. */
  full: boolean;
  /** The DueQueue holds maxHeld runs or more: nothing was claimed. */
  saturated: boolean;
}

/** Allotments this large are split with the group's other engines (splitWithPeers). */
const SPLIT_FROM = 64;

/** A tenant that claimed within this long (or holds runs) is active: it competes with its full budget. */
const ACTIVE_MS = 5_000;

/**
 * A wake-up's claim by id takes the tenants' budgets of a turn or claim at most this old (clock
 * ms). Working them out is a pass over every tenant of this node's groups (1,000 tenants: 0.2–1.4 ms,
 * 10,000: ~5 ms), and a claim turn needs it, but a wake-up needs one tenant's: worked out for each
 * one, a console's wake-ups cost an engine time in proportion to the number of tenants. A budget
 * follows which tenants are busy, which moves over seconds (ACTIVE_MS), not with each run; what a
 * tenant holds here is read afresh at every claim.
 */
export const BUDGETS_KEEP_MS = 100;

/**
 * Idle tenants a turn looks at (findTenantsWithDue: three index dives each, in one short
 * statement), round their list; only those with a claimable run are read by the claim. As many as
 * a turn reads: 1,000 idle tenants are each looked at every 10 polls (2 s at the default
 * BATON_CLAIM_INTERVAL_MS). Runs due later are claimed ahead (the look-ahead), and those a console
 * writes come with a wake-up: the look finds what neither brought (a wake-up lost with its
 * console, runs a stopped engine gave back).
 */
export const IDLE_PROBED_PER_TURN = TENANTS_PER_TURN;

interface Budgets {
  /** Every tenant of the node's groups (ClaimTenants' list, by id). */
  rows: readonly ClaimTenantRow[];
  /** `rows` by tenant id. */
  byId: ReadonlyMap<string, ClaimTenantRow>;
  /** The tenants active or backlogged here, with their loads: the others are idle (no runs held, none claimed lately). */
  busy: Map<string, TenantLoad>;
  /** The busy tenants' budgets (budgetTable); an idle tenant's is worked out when needed (budgetOf). */
  budgets: Map<string, number>;
  /** What the busy tenants leave of maxHeld: an idle tenant's budget comes out of it. */
  spare: number;
  engines: number;
}

/** A claim by id's runs a key would admit, left to the turn owed to older runs of the tenant (ClaimerService.owedTurn). */
const LEFT_TO_TURN = Symbol('left to a claim turn');

/** A wake-up's runs, read (`go`: the ones to hand over as they are, the ids left to claim, whether that claim may admit runs to their keys), or not (`fits`: whether the tenant had room for them). */
type NamedRead =
  | { go: false; fits: boolean }
  | { go: true; named: { tenantId: string; engineGroup: string }; now: number; ready: ClaimedRun[]; rest: number[]; unadmitted: NamedRun[]; admitting: boolean };

/**
 * A run a console wrote this recently (by this node's clock, either way) and named in a wake-up
 * is left to that wake-up by the turns (TenantTake.leaveWoken), unless a turn was kicked for its
 * tenant since the last one read it — a wake-up this node could not take by id (no room, a failed
 * claim, one naming no runs) or a signal of its own (a rate key's deferred runs, a retry): that
 * turn takes them as its room allows. A wake-up arrives in milliseconds (or goes to another engine
 * after WAKE_HEDGE_MS, 50 ms); one lost (a console killed between its commit and its wake-up)
 * leaves its runs to the turns after this long: at most this plus BATON_CLAIM_INTERVAL_MS later
 * than a wake-up. A console clock more than this away from this node's takes nothing from the turns.
 */
export const WOKEN_RUNS_GRACE_MS = 250;

/**
 * How long a peer's claim of a tenant's run this node held unclaimed keeps the tenant's wake-ups
 * claimed by id behind a line (ClaimerService.readNamed). The loss is seen only when the run reaches
 * its mark, seconds after its wake-up behind a backlog; a memory as short as that would let every
 * other wake-up's runs go unclaimed and lose again.
 */
export const UNCLAIMED_LOSS_MEMORY_MS = 10_000;

/**
 * Claims due runs of this node's engine groups and hands them to the DueQueue, which keeps
 * them in memory until their due time (so firing is exact to the millisecond, not to the poll
 * interval). Adaptive: after a full turn it claims again at once (a burst is drained at
 * database speed), otherwise it waits claimIntervalMs.
 *
 * Fair between tenants (issue 20): what a tenant may hold on this node is its budget
 * (claim-turn.ts tenantBudgets — weighted max-min fair shares of maxHeld, each tenant capped by
 * what its executors can take soon, split between the group's live engines), and each turn
 * divides its batch among the tenants with room left (planClaimTurn — deficit round robin's
 * outcome in one step), reading one index range per tenant. A tenant whose executors are slow,
 * full or absent holds no more than its budget; the rest of its backlog waits as PENDING rows in
 * the database, where it stands in front of nobody. When a tenant whose budget was full has
 * dispatched half of it, the DueQueue's notice brings the next turn forward.
 */
@Injectable()
export class ClaimerService {
  private readonly logger = new Logger('Claimer');
  private readonly loop: PeriodicLoop;
  /** Where the next turn starts among the backlogged tenants (the idle ones go by the look's window: probeCursor). */
  private activeCursor = 0;
  /** Where the next turn's look at the idle tenants starts (idleWithDueRuns). */
  private probeCursor = 0;
  /** Active tenants not yet read in this poll's round: while some are left, turns follow at once. */
  private roundLeft = 0;
  private readonly lastClaimAt = new Map<string, number>();
  /** The last budgets worked out, and when (BUDGETS_KEEP_MS). */
  private kept: { at: number; budgets: Budgets } | null = null;
  /** ClaimTenants' list last seen, by id (made again only when the list is read again). */
  private byId: { rows: readonly ClaimTenantRow[]; map: Map<string, ClaimTenantRow> } | null = null;
  /** Tenants whose last read filled their allotment: more of their runs are probably due. */
  private readonly backlogged = new Set<string>();
  /** Tenants that filled their budget, with it: the next turn comes when half of it has gone. */
  private readonly filled = new Map<string, number>();
  /**
   * Tenants a turn was kicked for (kickFor), or whose wake-up named a run not there to claim, since
   * a turn last read them: that turn takes their just-written runs too (WOKEN_RUNS_GRACE_MS). Cleared per tenant when a turn reads it, never by
   * a turn that was already reading when the kick came (it read before the kick's runs were there).
   */
  private readonly kicked = new Set<string>();
  /** Each tenant's claims by id, one after another in the order their wake-ups came (claimNamed). */
  private readonly namedClaims = new OneAtATime();
  /**
   * Tenants a wake-up's runs found no room for here since a turn last took every due run of theirs:
   * those runs wait for a turn, and a later wake-up's runs a key would admit wait for it too (the
   * turn takes them oldest first) — claimed by id, they would take their key's place first.
   */
  private readonly owedTurn = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    @Inject(DUE_QUEUE) private readonly dueQueue: DueQueuePort,
    private readonly peers: GroupPeers,
    private readonly tenants: ClaimTenants,
    private readonly pace: TenantPace,
    private readonly claims: RunClaims,
    signal: ClaimSignal,
    private readonly clockWatch: ClockWatch,
    private readonly liveness: NodeLiveness,
    @Optional() private readonly wokenRows?: WokenRows,
  ) {
    this.loop = new PeriodicLoop('claim', config.claimIntervalMs, async () => ((await this.claimOnce()).full ? 0 : undefined), this.logger);
    signal.onDue((tenantId, runIds) => this.woken(tenantId, runIds));
    dueQueue.onReleased((tenantId) => this.released(tenantId));
  }

  /** Starts claiming: the first poll after `firstPollInMs` (default: at once); wake-ups are taken from now on. */
  start(firstPollInMs = 0): void {
    this.loop.start(firstPollInMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One turn: each tenant's allotment of at most claimBatch runs, within its budget and maxHeld. */
  async claimOnce(): Promise<ClaimResult> {
    // A clock beyond BATON_CLOCK_SKEW_STOP_MS of the database's claims nothing: the other engines take the runs (ClockWatch).
    if (!this.clockWatch.mayClaim) return { claimed: 0, full: false, saturated: false };
    const { claimBatch, maxHeld } = this.config;
    const batch = Math.min(claimBatch, maxHeld - this.dueQueue.held);
    if (batch <= 0) return { claimed: 0, full: false, saturated: true };
    // Back from a stall: not before the heartbeat has shown whether this node is still UP (NodeLiveness).
    if (this.liveness.lapsed) return { claimed: 0, full: false, saturated: false };
    const now = this.clock.now();
    const table = await this.budgets(now);
    const { engines } = table;
    const look = await this.idleWithDueRuns(table, now);
    // This turn's tenants: the backlogged, then the idle ones of the look in its order (the look's window is their rotation).
    const budgets = new Map(table.budgets);
    for (const t of look.due) budgets.set(t.id, this.budgetOf(table, t.id, now));
    const backlogged = [...table.busy.values()].filter((t) => t.backlogged);
    const turn = planClaimTurn([...backlogged, ...look.due], budgets, { batch, cursor: { active: this.activeCursor, idle: 0 } });
    this.activeCursor = turn.nextCursor.active;
    this.probeCursor = look.nextStart(new Set(turn.takes.map((take) => take.tenantId)));
    if (this.roundLeft <= 0) this.roundLeft = turn.active;
    this.roundLeft -= turn.activeRead;
    const more = this.roundLeft > 0;
    if (turn.takes.length === 0) {
      this.metrics.claimBatch.observe({ kind: 'runs' }, 0);
      return { claimed: 0, full: more, saturated: false };
    }
    // The split's counts are plain reads, outside the claim's transaction: an idle turn (every
    // count 0) then costs one statement, not SET TRANSACTION + START + count + COMMIT.
    const takes = await this.splitWithPeers(turn.takes, { dueBefore: now + this.config.lookAheadMs, now }, engines);
    const takeWoken = new Set(takes.filter((take) => take.limit > 0 && this.kicked.delete(take.tenantId)).map((take) => take.tenantId));
    const runs = takes.some((take) => take.limit > 0)
      ? await this.timedClaim(() =>
          inTransaction(
            this.dataSource,
            (em) => {
              const now = this.clock.now();
              const woken = { from: now - WOKEN_RUNS_GRACE_MS, to: now + WOKEN_RUNS_GRACE_MS };
              const leaving = takes.map((take) => (takeWoken.has(take.tenantId) ? take : { ...take, leaveWoken: woken }));
              return this.claims.claim(em, leaving, { dueBefore: now + this.config.lookAheadMs, now });
            },
            { isolation: 'READ COMMITTED' },
          ),
        )
      : [];
    this.metrics.claimBatch.observe({ kind: 'runs' }, runs.length);
    const got = new Map<string, number>();
    for (const run of runs) got.set(run.tenantId, (got.get(run.tenantId) ?? 0) + 1);
    let whole = false;
    for (const take of takes) {
      const n = got.get(take.tenantId) ?? 0;
      if (n > 0) this.lastClaimAt.set(take.tenantId, now);
      if (take.limit === 0 || n < take.limit) {
        if (take.limit > 0) {
          this.backlogged.delete(take.tenantId);
          this.owedTurn.delete(take.tenantId); // it took every due run of the tenant: the refused ones too
        }
        continue;
      }
      this.backlogged.add(take.tenantId);
      whole = true;
      const budget = budgets.get(take.tenantId) ?? 0;
      if (this.dueQueue.heldOf(take.tenantId) + n >= budget) this.filled.set(take.tenantId, budget);
    }
    if (runs.length > 0) await this.handOver(runs);
    return { claimed: runs.length, full: whole || more, saturated: false };
  }

  /**
   * The next IDLE_PROBED_PER_TURN of the tenants not backlogged that have room (round the list of
   * all tenants from probeCursor), and those of them with a claimable run (findTenantsWithDue): an
   * idle tenant costs a turn three index dives, not a range in its claim transaction
   * (findTenantsWithDue says what that cost with 1,000 idle tenants), and no object unless it is
   * in the window. `nextStart` moves the window past the tenants the turn read and those with
   * nothing due, and stops at the first due one it had no place for.
   */
  private async idleWithDueRuns(b: Budgets, now: number): Promise<{ due: TenantLoad[]; nextStart: (read: ReadonlySet<string>) => number }> {
    const rows = b.rows;
    const start = rows.length === 0 ? 0 : this.probeCursor % rows.length;
    const window: Array<{ at: number; load: TenantLoad }> = [];
    let scanned = 0;
    for (; scanned < rows.length && window.length < IDLE_PROBED_PER_TURN; scanned++) {
      const row = rows[(start + scanned) % rows.length];
      const busy = b.busy.get(row.id);
      if (busy?.backlogged || row.claimShare <= 0) continue;
      const load = busy ?? this.loadOf(row, now, { held: 0, active: false, backlogged: false });
      if (this.budgetOf(b, row.id, now) > load.held) window.push({ at: start + scanned, load });
    }
    if (window.length === 0) return { due: [], nextStart: () => start + scanned };
    const found = await findTenantsWithDue(this.dataSource.manager, { tenantIds: window.map((w) => w.load.id), dueBefore: now + this.config.lookAheadMs, now });
    const nextStart = (read: ReadonlySet<string>) => {
      const stop = window.find((w) => found.has(w.load.id) && !read.has(w.load.id));
      return stop ? stop.at : start + scanned;
    };
    return { due: window.filter((w) => found.has(w.load.id)).map((w) => w.load), nextStart };
  }

  /** A claim, its time observed in baton_engine_claim_seconds{kind="runs"} (a failed one too). */
  private async timedClaim<T>(claim: () => Promise<T>): Promise<T> {
    const end = this.metrics.claimDuration.startTimer({ kind: 'runs' });
    try {
      return await claim();
    } finally {
      end();
    }
  }

  /**
   * The runs a wake-up named (a manual trigger's), read by id (RunClaims.readNamed: one statement,
   * the runs that go out as they are left for their DISPATCHED mark to claim) and the others
   * claimed by id (claimNamedRuns: two statements, no transaction), instead of in a turn that
   * searches the tenant's range. Only within what the tenant may hold here and maxHeld, as a turn
   * would take them; returns false when they do not fit, and the caller leaves them to a turn. A
   * peer that got them first leaves nothing to claim. Nothing while the claimer is stopped
   * (starting, shutting down, a follower: engine lifecycle).
   *
   * A tenant's claims by id that may admit runs to their keys go one after another, in the order
   * their wake-ups came, each wake-up's place in line taken before the first await: a key admits
   * the runs its claims bring in the order they come (KeyAdmissions), and a console's trigger
   * after trigger of one key must be admitted oldest first. Taken side by side, the second
   * trigger's claim could lock the key first when the first one's reads were slower: the newer run
   * started, the older waited HELD for its end (CI, 2026-12-06: concurrency-keys.e2e-spec on
   * MariaDB). The others leave the line once read: runs with nothing to decide (a key's released
   * runs among them: a flooded key's hand-overs) go out at once, and claims that admit nothing
   * are taken alongside, never in front of the tenant's other keys. While older runs of the tenant
   * wait for a turn (no room for them here: owedTurn), runs a key would admit wait for it too
   * (false: the caller kicks it).
   */
  private async claimNamed(tenantId: string, runIds: readonly number[]): Promise<boolean> {
    const timed = this.metrics.claimDuration.startTimer({ kind: 'runs' });
    const reading = this.readNamed(tenantId, runIds);
    const claim = (read: NamedRead & { go: true }) => this.claims.claimNamed(this.dataSource.manager, { ...read.named, ids: read.rest, unadmitted: read.unadmitted }, { dueBefore: read.now + this.config.lookAheadMs, now: read.now });
    const inLine = this.namedClaims.run(tenantId, async () => {
      const read = await reading.catch(() => null); // a failed read is the caller's to report
      if (!read?.go || !read.admitting) return null;
      return this.owedTurn.has(tenantId) ? LEFT_TO_TURN : claim(read);
    });
    const read = await reading;
    if (!read.go) return read.fits;
    let runs: ClaimedRun[];
    let leftToTurn = false;
    try {
      if (read.rest.length === 0) runs = read.ready;
      else if (!read.admitting) runs = [...read.ready, ...(await claim(read))];
      else {
        const claimed = await inLine;
        leftToTurn = claimed === LEFT_TO_TURN;
        runs = claimed === LEFT_TO_TURN ? read.ready : [...read.ready, ...claimed!];
      }
    } finally {
      timed();
    }
    this.metrics.claimBatch.observe({ kind: 'runs' }, runs.length);
    // Some named run was not there to claim (a peer's, gone, not due): the next turn takes the tenant's just-written runs too.
    if (runs.length < runIds.length) this.kicked.add(tenantId);
    if (runs.length > 0) {
      this.lastClaimAt.set(tenantId, read.now);
      await this.handOver(runs);
    }
    return !leftToTurn;
  }

  /**
   * A wake-up's runs read (RunClaims.readNamed) when the claimer runs and the tenant has room for
   * them here; `fits` otherwise says whether they did. They go out unclaimed (their DISPATCHED mark
   * their claim) unless a slot's worth of the tenant's runs or more wait here to be sent and a peer
   * claimed one of its unclaimed runs before its mark within UNCLAIMED_LOSS_MEMORY_MS (TenantPace):
   * an unclaimed run is still PENDING in the database, and one held past WOKEN_RUNS_GRACE_MS is a
   * peer's claim turn's to take. Then they are claimed by id (two statements a wake-up). Behind a
   * backlog, 79 % of a wake-up's runs taken unclaimed had the other engine claim them first, each
   * read, held, given a slot and a failed mark for nothing (event-ingest, 2026-12-06: 9,790 of
   * 12,372). Claimed by id whenever the line was long, with no peer taking anything, two nodes
   * taking 2,000 batched runs a second tipped over in 2 runs of 3 (1,867 and 1,929 starts/s, p99
   * 1.4–2.4 s; the commit before in the same pairs: 2,004–2,006/s, p99 81–109 ms): a hiccup's line
   * turned every wake-up into CLAIMED writes on a machine already at its edge.
   */
  private async readNamed(tenantId: string, runIds: readonly number[]): Promise<NamedRead> {
    if (!this.loop.isRunning || this.liveness.lapsed) return { go: false, fits: true };
    const now = this.clock.now();
    const kept = this.kept && now - this.kept.at < BUDGETS_KEEP_MS ? this.kept.budgets : await this.budgets(now);
    const tenant = kept.byId.get(tenantId);
    const room = Math.min(this.budgetOf(kept, tenantId, now) - this.dueQueue.heldOf(tenantId), this.config.maxHeld - this.dueQueue.held);
    if (!tenant || (room < runIds.length && !this.overdraws(tenantId, runIds, room))) {
      this.owedTurn.add(tenantId);
      return { go: false, fits: false };
    }
    const named = { tenantId, engineGroup: tenant.engineGroup };
    const unclaimed = this.dueQueue.waitingOf(tenantId) < this.config.slots || !this.pace.lostUnclaimedSince(tenantId, now - UNCLAIMED_LOSS_MEMORY_MS);
    return { go: true, named, now, ...(await this.claims.readNamed(this.dataSource.manager, { ...named, ids: runIds }, { now, unclaimed })) };
  }

  /**
   * Whether a wake-up's runs that do not fit in their tenant's room here (`room`: its budget less
   * what it holds) may be claimed past it: each of their tasks holds, with them, at most
   * TASK_OVERDRAFT runs here, and the tenant ends at most TASK_OVERDRAFT over its budget, within maxHeld. Their tasks are
   * known from the rows the wake-up carried (WokenRows); without them, no.
   */
  private overdraws(tenantId: string, runIds: readonly number[], room: number): boolean {
    if (runIds.length > room + TASK_OVERDRAFT || this.dueQueue.held + runIds.length > this.config.maxHeld) return false;
    const tasks = this.wokenRows?.taskIdsOf(tenantId, runIds);
    if (!tasks) return false;
    const named = new Map<number, number>();
    for (const task of tasks) named.set(task, (named.get(task) ?? 0) + 1);
    for (const [task, n] of named) if (this.dueQueue.heldOfTask(tenantId, task) + n > TASK_OVERDRAFT) return false;
    return true;
  }

  /**
   * The loads of the tenants active or backlogged on this node and their budgets (budgetTable), as
   * of `now`; kept for the claims by id. An idle tenant gets no object here: with 10,000 tenants
   * a pass that copied each one cost an engine ~0.1 of a core, idle (its CPU profile, 2026-12-06).
   */
  private async budgets(now: number): Promise<Budgets> {
    const rows = await this.tenants.current();
    if (this.byId?.rows !== rows) this.byId = { rows, map: new Map(rows.map((t) => [t.id, t])) };
    const busy = new Map<string, TenantLoad>();
    for (const t of rows) {
      const held = this.dueQueue.heldOf(t.id);
      const active = held > 0 || now - (this.lastClaimAt.get(t.id) ?? -Infinity) < ACTIVE_MS;
      const backlogged = this.backlogged.has(t.id);
      if (active || backlogged) busy.set(t.id, this.loadOf(t, now, { held, active, backlogged }));
    }
    const engines = this.peers.sharing();
    const { budgets, spare } = budgetTable([...busy.values()], { maxHeld: this.config.maxHeld, engines });
    const kept: Budgets = { rows, byId: this.byId.map, busy, budgets, spare, engines };
    this.kept = { at: now, budgets: kept };
    return kept;
  }

  /** A tenant's load on this node. */
  private loadOf(t: ClaimTenantRow, now: number, state: { held: number; active: boolean; backlogged: boolean }): TenantLoad {
    // Object.assign, not `{ ...t, held, … }`: V8 (Node 20) builds a spread followed by more keys on a slow path, 8 µs a tenant.
    return Object.assign({}, t, state, { recentlyAccepted: this.pace.recent(t.id, now, this.config.lookAheadMs) });
  }

  /** What a tenant may hold here: a busy one's budget, an idle one's cap out of the spare (0: not a tenant of the node's groups). */
  private budgetOf(b: Budgets, tenantId: string, now: number): number {
    const budget = b.budgets.get(tenantId);
    if (budget !== undefined) return budget;
    const row = b.byId.get(tenantId);
    return row ? idleBudget({ executorRoom: row.executorRoom, recentlyAccepted: this.pace.recent(tenantId, now, this.config.lookAheadMs) }, b.spare, b.engines) : 0;
  }

  /**
   * With other live engines in the group, a tenant's large allotment is cut to this node's share
   * of the tenant's backlog (⌈backlog ÷ engines⌉ − held): a burst is split between the engines
   * instead of going to whichever polled first. Counted (countTenantBacklog) only for allotments
   * of SPLIT_FROM runs or more: small ones cannot unbalance anything.
   */
  private async splitWithPeers(takes: TenantTake[], at: { dueBefore: number; now: number }, engines: number): Promise<TenantTake[]> {
    if (engines <= 1) return takes;
    const split: TenantTake[] = [];
    for (const take of takes) {
      if (take.limit < SPLIT_FROM) {
        split.push(take);
        continue;
      }
      const held = this.dueQueue.heldOf(take.tenantId);
      const backlog = await countTenantBacklog(this.dataSource.manager, { tenantId: take.tenantId, engineGroup: take.engineGroup, ...at, cap: engines * (held + take.limit) });
      split.push({ ...take, limit: Math.max(0, Math.min(take.limit, Math.ceil(backlog / engines) - held)) });
    }
    return split;
  }

  /**
   * Runs of `tenantId` are due now (ClaimSignal): those named are claimed by id when they fit;
   * otherwise the tenant is read in the next turn, which comes at once.
   */
  private woken(tenantId: string, runIds?: readonly number[]): void {
    if (runIds && runIds.length > 0) {
      this.claimNamed(tenantId, runIds).then(
        (claimed) => claimed || this.kickFor(tenantId),
        (err: Error) => {
          this.logger.warn(`claiming run(s) ${runIds.join(', ')} by id failed, leaving them to a claim turn: ${err.message}`, { tenantId });
          this.kickFor(tenantId);
        },
      );
      return;
    }
    this.kickFor(tenantId);
  }

  private kickFor(tenantId: string): void {
    this.backlogged.add(tenantId);
    this.kicked.add(tenantId);
    // Its runs here wait for its quota's tokens: a run claimed now would wait behind them. A poll
    // claims what came due meanwhile, together: kicked for every wake-up instead, a tenant held
    // back by its quota was claimed one run a turn, each turn a transaction and a backlog count
    // (a retry's wake-up started a turn for each retry: bench failing-storm --a-quota).
    if (this.dueQueue.paced(tenantId)) return;
    this.loop.kick();
  }

  /** A run of `tenantId` left this node's hands: a tenant that had filled its budget and is down to half of it claims again now. */
  private released(tenantId: string): void {
    const budget = this.filled.get(tenantId);
    if (budget === undefined || this.dueQueue.heldOf(tenantId) > budget / 2) return;
    this.filled.delete(tenantId);
    this.loop.kick();
  }

  /**
   * Gives the claimed runs to the DueQueue. Should it refuse them (a bug, or a queue already
   * shut down), they are released at once: a claimed run nobody holds in memory would have its
   * lease renewed by this node forever and never fire.
   */
  private async handOver(runs: ClaimedRun[]): Promise<void> {
    // Which executors start runs at their instant decides which runs go ahead: an engine that had
    // not sent a run yet had never read them, and held its first claims until their instant. Read
    // only when something was claimed: an idle turn costs no statement more.
    await this.dueQueue.refreshRouting();
    try {
      this.dueQueue.accept(runs);
    } catch (err) {
      this.logger.error(`DueQueue refused ${runs.length} claimed run(s), releasing them: ${(err as Error).message}`);
      const now = this.clock.now();
      await inTransaction(this.dataSource, (em) => this.claims.giveBack(em, runs.map((r) => r.runId), now));
    }
  }
}
