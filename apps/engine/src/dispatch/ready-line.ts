import { BinaryHeap, type QueueHandle } from '@baton/scheduling';
import type { ClaimedRun } from '../common/claimed-run';

/**
 * A run is still on time while its due instant is at most this far behind: long enough for a
 * timer that fires late on an event loop busy starting a burst (50–90 ms measured while 64
 * dispatches start at once on 2 shared cores), short against a backlog's lateness (~1 s for
 * 1,000 runs).
 */
export const ON_TIME_WINDOW_MS = 100;

interface Entry {
  run: ClaimedRun;
  /** Replaced (the run was accepted again) or taken: skipped when reached. */
  gone: boolean;
}

/** One task's runs in its tenant's line, in the order of their instants (among runs of one instant, the order they came due). */
interface TaskLine {
  taskId: number;
  entries: Entry[];
  head: number;
  /** Runs its tenant's turns gave it (start-time fair queuing's tag, counted in runs). */
  served: number;
  /** Its place among its tenant's tasks, null while it has no run in line. */
  handle: QueueHandle | null;
  /** The instant its place was set by (its first run's then). */
  placedAt: number;
}

/**
 * One tenant's runs in line, a line per task, and what is left of its turn. Its tasks take its
 * turns fairly (start-time fair queuing): the task served least goes next, among those served
 * alike the one whose first run is due first (then the higher priority, then the first in line).
 * A task that comes into line starts where the last task served stood, so it goes next, not
 * after a backlog's thousands, nor ahead of the tasks already waiting by what it missed while
 * away.
 */
interface TenantLine {
  tasks: Map<number, TaskLine>;
  /** The tasks with runs in line, keyed by `served`, then by their first run's instant and priority. */
  order: BinaryHeap<TaskLine>;
  /** What the task taken last had been served before: where a task coming into line starts. */
  served: number;
  /** Runs it may still take in its current turn (its claim share at the turn's start). */
  credit: number;
}

/**
 * The due runs waiting for a dispatch slot. Three ways out:
 * - `takeAlone`: **the on-time lane** (issue 22 item 3) — a run that came due while no other run
 *   of its tenant was in line nor came due with it, still on time (ON_TIME_WINDOW_MS): a fixed-rate or cron fire, a
 *   trigger. The DueQueue serves it before anything else, in whatever slot is free, the ones kept
 *   for on-time work included. A tenant has at most one such run in line at a time (its next run
 *   finds the first one there), so a burst, a backlog or a backfill cannot use the lane to jump
 *   other tenants: the lane holds at most one run per tenant;
 * - `takeInTurn`: the general slots serve **the tenants in turn**, and within a tenant's turns
 *   **its tasks in turn** — each task's runs in the order of their instants (a run due now before
 *   runs sent ahead for later; among runs of one instant, the DueQueue's order: due time,
 *   priority, FIFO), its tasks by start-time fair queuing (TenantLine), so one task's backlog of
 *   thousands costs a run of another task of its tenant one run of it, not the backlog; the tenants
 *   round robin, a turn being as many runs as the tenant's claim share (deficit round robin). A
 *   tenant's backlog of thousands costs another tenant's run at most one turn of each tenant in
 *   line, not the backlog's length: a run that missed the lane (its tenant's previous one was
 *   still being sent) is a few milliseconds late, not seconds. Nothing starves: every tenant in
 *   line gets its turn each round;
 * - `takeNewestOnTime`: the slots reserved for on-time work (BATON_ENGINE_ON_TIME_SLOTS) take from
 *   the tail of the whole line, and only a run still on time. A run due alone while its own
 *   tenant's backlog is being worked off is the newest in line: it goes out at once instead of
 *   behind the backlog (MTHPT's third open problem, issue 11 item 3).
 */
export class ReadyLine {
  /** Every run in line, in the order they came due (the tail for takeNewestOnTime, takeAll's order). */
  private entries: Entry[] = [];
  private head = 0;
  private readonly byRun = new Map<number, Entry>();
  /** Runs in line by tenant. */
  private readonly ofTenant = new Map<string, number>();
  /** Each tenant's line; a tenant is here while it is in `round` (its line may have emptied since). */
  private readonly lines = new Map<string, TenantLine>();
  /** The tenants' turns: each tenant of `lines` once, from `roundHead` on; the first is the one whose turn it is. */
  private round: string[] = [];
  private roundHead = 0;
  /** Entries that came due alone for their tenant, in the order they came (the lane; gone or late ones dropped on the way). */
  private alone: Entry[] = [];

  get size(): number {
    return this.byRun.size;
  }

  has(runId: number): boolean {
    return this.byRun.has(runId);
  }

  /** Whether a run of this tenant is in line. */
  hasTenant(tenantId: string): boolean {
    return this.ofTenant.has(tenantId);
  }

  /** How many runs of this tenant are in line. */
  countOf(tenantId: string): number {
    return this.ofTenant.get(tenantId) ?? 0;
  }

  /** A run that came due in a pump of its own. */
  push(run: ClaimedRun): void {
    this.pushAll([run]);
  }

  /**
   * Runs that came due together (one pump of the DueQueue). A run is in the lane only if it came
   * due alone: no other run of its tenant in line before, none among these. A wake-up's handful of
   * triggers, or several fires of one instant, go out together by the general slots — one
   * DISPATCHED mark, one request an executor — not their first in a mark and a request of its own
   * (bench on-demand: a wake-up at 300–500 runs/s names 2–4 runs; the lane's split made it 2 marks and 2–3 requests).
   */
  pushAll(runs: readonly ClaimedRun[]): void {
    const fresh = new Map<string, Entry | null>();
    for (const run of runs) {
      const entry = this.append(run);
      const before = (this.ofTenant.get(run.tenantId) ?? 1) - 1;
      if (before === 0) fresh.set(run.tenantId, entry);
      else if (fresh.has(run.tenantId)) fresh.set(run.tenantId, null);
    }
    for (const entry of fresh.values()) if (entry) this.alone.push(entry);
  }

  /** The run in line (its tenant's count and its task's line included), not in the lane. */
  private append(run: ClaimedRun): Entry {
    this.remove(run.runId);
    const entry = { run, gone: false };
    this.entries.push(entry);
    this.byRun.set(run.runId, entry);
    this.ofTenant.set(run.tenantId, (this.ofTenant.get(run.tenantId) ?? 0) + 1);
    let line = this.lines.get(run.tenantId);
    if (!line) {
      // Small at first (it doubles when full): a line per tenant with runs in line, thousands of them at one instant.
      line = { tasks: new Map(), order: new BinaryHeap<TaskLine>({ initialCapacity: 4 }), served: 0, credit: 0 };
      this.lines.set(run.tenantId, line);
      this.round.push(run.tenantId);
    }
    let task = line.tasks.get(run.taskId);
    if (!task) {
      task = { taskId: run.taskId, entries: [], head: 0, served: line.served, handle: null, placedAt: 0 };
      line.tasks.set(run.taskId, task);
    }
    task.entries.splice(placeOf(task, run.instant), 0, entry);
    // Placed anew only when it comes into line or its first run is now this one.
    if (task.handle === null || run.instant < task.placedAt) place(line, task);
    return entry;
  }

  /** Drops the run from the line (it is held anew elsewhere); true if it was in line. */
  remove(runId: number): boolean {
    const entry = this.byRun.get(runId);
    if (!entry) return false;
    this.taken(entry);
    return true;
  }

  /**
   * The first run of the lane (came due alone for its tenant) still on time at `now` whose tenant
   * `may` have it (the DueQueue: none of its runs is in the lane already), or nothing.
   */
  takeAlone(now: number, may: (tenantId: string) => boolean): ClaimedRun | undefined {
    this.alone = this.alone.filter((e) => !e.gone && now - e.run.instant <= ON_TIME_WINDOW_MS);
    const i = this.alone.findIndex((e) => may(e.run.tenantId));
    if (i < 0) return undefined;
    const [entry] = this.alone.splice(i, 1);
    return this.taken(entry);
  }

  /**
   * The oldest run of the tenant whose turn it is, or nothing when the line is empty. A turn is
   * `shareOf(tenant)` runs (at least 1), or fewer if its line empties first; then the next tenant's.
   * A tenant the caller says `may` not have a run now loses its turn; nothing when none may.
   */
  takeInTurn(shareOf: (tenantId: string) => number, may: (tenantId: string) => boolean = () => true): ClaimedRun | undefined {
    for (let passed = 0; this.roundHead < this.round.length && passed < this.lines.size; ) {
      const tenantId = this.round[this.roundHead];
      const line = this.lines.get(tenantId) as TenantLine;
      const task = firstTask(line);
      if (task === undefined) {
        this.lines.delete(tenantId);
        this.roundHead++;
        continue;
      }
      if (!may(tenantId)) {
        // Its turn is passed (it holds its share of the slots): to the back of the round.
        line.credit = 0;
        this.roundHead++;
        this.round.push(tenantId);
        passed++;
        continue;
      }
      const entry = task.entries[task.head++];
      line.served = task.served++;
      place(line, task);
      if (line.credit <= 0) line.credit = Math.max(1, Math.floor(shareOf(tenantId)));
      if (--line.credit === 0) {
        this.roundHead++;
        this.round.push(tenantId);
      }
      return this.taken(entry);
    }
    return undefined;
  }

  /**
   * The newest run in line if it is still on time at `now` and came due after the oldest one (or
   * is alone in line) — else nothing (an older one is later still). A burst whose runs share one instant is thus left
   * to the general slots whole: taking its tail into the on-time slots would only keep them busy
   * when a run due alone comes a few milliseconds later.
   */
  takeNewestOnTime(now: number): ClaimedRun | undefined {
    while (this.entries.length > this.head && this.entries[this.entries.length - 1].gone) this.entries.pop();
    const newest = this.entries[this.entries.length - 1];
    if (!newest || now - newest.run.instant > ON_TIME_WINDOW_MS) return undefined;
    const oldest = this.oldest();
    if (oldest !== newest && newest.run.instant <= oldest.run.instant) return undefined;
    this.entries.pop();
    return this.taken(newest);
  }

  /** The first live entry (there is one: the caller holds the newest). */
  private oldest(): Entry {
    while (this.entries[this.head].gone) this.head++;
    return this.entries[this.head];
  }

  /** Every run in line, in the order they came due; the line is left empty. */
  takeAll(): ClaimedRun[] {
    const runs = this.entries.slice(this.head).filter((e) => !e.gone).map((e) => e.run);
    this.clear();
    return runs;
  }

  private taken(entry: Entry): ClaimedRun {
    entry.gone = true;
    this.byRun.delete(entry.run.runId);
    const left = (this.ofTenant.get(entry.run.tenantId) ?? 1) - 1;
    if (left > 0) this.ofTenant.set(entry.run.tenantId, left);
    else {
      this.ofTenant.delete(entry.run.tenantId);
      // Its line holds only taken entries now: dropped at once, the tenant leaves the round when its turn comes.
      const line = this.lines.get(entry.run.tenantId);
      if (line) {
        line.tasks.clear();
        line.order.clear();
      }
    }
    this.compact(this.lines.get(entry.run.tenantId)?.tasks.get(entry.run.taskId));
    return entry.run;
  }

  private clear(): void {
    this.entries = [];
    this.head = 0;
    this.byRun.clear();
    this.ofTenant.clear();
    this.lines.clear();
    this.round = [];
    this.roundHead = 0;
    this.alone = [];
  }

  /** Keeps the arrays from growing with entries already passed: rebuilt when they are most of them. */
  private compact(line: TaskLine | undefined): void {
    if (this.byRun.size === 0) return this.clear();
    // Runs leave by their tenant's line, not from this one's head: the head follows the oldest still in line.
    while (this.entries[this.head].gone) this.head++;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    if (line && line.head > 1024 && line.head * 2 > line.entries.length) {
      line.entries = line.entries.slice(line.head);
      line.head = 0;
    }
    if (this.roundHead > 1024 && this.roundHead * 2 > this.round.length) {
      this.round = this.round.slice(this.roundHead);
      this.roundHead = 0;
    }
  }
}

/**
 * The task whose turn it is in the tenant's line (the head of its order, its place brought up to
 * date: runs taken another way or removed leave a task's first run later than its place says, or
 * the task empty), or nothing when the line is empty.
 */
function firstTask(line: TenantLine): TaskLine | undefined {
  for (let task = line.order.peek(); task !== undefined; task = line.order.peek()) {
    while (task.head < task.entries.length && task.entries[task.head].gone) task.head++;
    if (task.head === task.entries.length || task.entries[task.head].run.instant !== task.placedAt) place(line, task);
    else return task;
  }
  return undefined;
}

/** Puts the task at its place among its tenant's tasks (by what it was served, then its first run), or out of the line when it has none left. */
function place(line: TenantLine, task: TaskLine): void {
  if (task.handle !== null) line.order.remove(task.handle);
  task.handle = null;
  while (task.head < task.entries.length && task.entries[task.head].gone) task.head++;
  if (task.head === task.entries.length) {
    line.tasks.delete(task.taskId);
    return;
  }
  const first = task.entries[task.head].run;
  task.placedAt = first.instant;
  // Higher first on a tie of `served`: the earlier instant, then the higher priority (−100…100).
  task.handle = line.order.enqueue(task, task.served, -first.instant * 256 + first.priority);
}

/**
 * Where a run of this instant goes in its task's line: after every run of its instant or an
 * earlier one. Runs come due when they may be sent, which for a run sent ahead is its instant less
 * the send-ahead (10 s): a run due now would otherwise wait behind its task's runs due seconds
 * later (a trigger of a task whose scheduled fires are sent ahead). Runs mostly come in order of
 * their instants, so the common case is the end of the line; else a binary search from the line's head.
 */
function placeOf(line: TaskLine, instant: number): number {
  const { entries } = line;
  if (entries.length === line.head || entries[entries.length - 1].run.instant <= instant) return entries.length;
  let lo = line.head;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].run.instant <= instant) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
