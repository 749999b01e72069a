import type { ClaimedRun } from '../claimed-run';

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

/**
 * The due runs waiting for a dispatch slot, in the order they came due (the DueQueue's calendar
 * order: due time, priority, FIFO). Three ways out:
 * - `takeAlone`: **the on-time lane** (issue 22 item 3) — a run that came due while no other run
 *   of its tenant was in line, still on time (ON_TIME_WINDOW_MS): a fixed-rate or cron fire, a
 *   trigger. The DueQueue serves it before anything else, in whatever slot is free, the ones kept
 *   for on-time work included. A tenant has at most one such run in line at a time (its next run
 *   finds the first one there), so a burst, a backlog or a backfill cannot use the lane to jump
 *   other tenants: the lane holds at most one run per tenant;
 * - `takeOldest`: the general slots serve the line from its head, oldest first, so nothing
 *   starves however many runs keep coming due;
 * - `takeNewestOnTime`: the slots reserved for on-time work (BATON_ENGINE_ON_TIME_SLOTS) take from
 *   its tail, and only a run still on time. A run due alone while its own tenant's backlog
 *   is being worked off is the newest in line: it goes out at once instead of behind the backlog
 *   (MTHPT's third open problem, issue 11 item 3).
 */
export class ReadyLine {
  private entries: Entry[] = [];
  private head = 0;
  private readonly byRun = new Map<number, Entry>();
  /** Runs in line by tenant. */
  private readonly ofTenant = new Map<string, number>();
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

  push(run: ClaimedRun): void {
    this.remove(run.runId);
    const entry = { run, gone: false };
    this.entries.push(entry);
    this.byRun.set(run.runId, entry);
    const before = this.ofTenant.get(run.tenantId) ?? 0;
    this.ofTenant.set(run.tenantId, before + 1);
    if (before === 0) this.alone.push(entry);
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
    this.alone = this.alone.filter((e) => !e.gone && now - e.run.dueAt <= ON_TIME_WINDOW_MS);
    const i = this.alone.findIndex((e) => may(e.run.tenantId));
    if (i < 0) return undefined;
    const [entry] = this.alone.splice(i, 1);
    return this.taken(entry);
  }

  takeOldest(): ClaimedRun | undefined {
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head++];
      if (!entry.gone) return this.taken(entry);
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
    if (!newest || now - newest.run.dueAt > ON_TIME_WINDOW_MS) return undefined;
    const oldest = this.oldest();
    if (oldest !== newest && newest.run.dueAt <= oldest.run.dueAt) return undefined;
    this.entries.pop();
    return this.taken(newest);
  }

  /** The first live entry (there is one: the caller holds the newest). */
  private oldest(): Entry {
    while (this.entries[this.head].gone) this.head++;
    return this.entries[this.head];
  }

  /** Every run in line, oldest first; the line is left empty. */
  takeAll(): ClaimedRun[] {
    const runs = this.entries.slice(this.head).filter((e) => !e.gone).map((e) => e.run);
    this.entries = [];
    this.head = 0;
    this.byRun.clear();
    this.ofTenant.clear();
    this.alone = [];
    return runs;
  }

  private taken(entry: Entry): ClaimedRun {
    entry.gone = true;
    this.byRun.delete(entry.run.runId);
    const left = (this.ofTenant.get(entry.run.tenantId) ?? 1) - 1;
    if (left > 0) this.ofTenant.set(entry.run.tenantId, left);
    else this.ofTenant.delete(entry.run.tenantId);
    this.compact();
    return entry.run;
  }

  /** Keeps the array from growing with entries already passed: rebuilt when they are most of it. */
  private compact(): void {
    if (this.byRun.size === 0) {
      this.entries = [];
      this.head = 0;
      this.alone = [];
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
