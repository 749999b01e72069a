import type { ClaimedRun } from '../common/claimed-run';

/**
 * The runs of one (tenant, executor app) that CreditGate holds back for want of room on its
 * executors: a line per task, each in the order of the instants its runs are due at, and the
 * tasks take the room that frees up in turn (round robin; a task coming into line takes its turn
 * after the tasks already there). In one line by instant, a task's thousands of runs held back
 * stood before its tenant's other task's run due now: on an app whose handlers were slow the other
 * task's runs started 42 s after they were triggered (bench task-backlog --bulk-ms).
 */
export class HeldBackLines {
  /** Each task's runs by instant, the task whose turn it is first (a Map keeps the order keys were set in). */
  private readonly lines = new Map<number, ClaimedRun[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Holds a run back: by instant in its task's line, after the runs of its instant there or (`first`: it was there before them) before them. */
  add(run: ClaimedRun, first: boolean): void {
    const line = this.lines.get(run.taskId);
    if (line) line.splice(placeOf(line, run.instant, first), 0, run);
    else this.lines.set(run.taskId, [run]);
    this.count++;
  }

  /** The earliest instant held back (Infinity when none). */
  earliestInstant(): number {
    let earliest = Infinity;
    for (const line of this.lines.values()) earliest = Math.min(earliest, line[0].instant);
    return earliest;
  }

  /**
   * Up to `n` runs taken out: first the runs `dueNow` says are due, the tasks in turn (each gives
   * its first, then goes to the back), then, beyond `kept` of the `n`, runs sent ahead, earliest
   * instant first.
   */
  take(n: number, kept: number, dueNow: (run: ClaimedRun) => boolean): ClaimedRun[] {
    const out: ClaimedRun[] = [];
    while (out.length < n) {
      const turn = this.firstWith((line) => dueNow(line[0]));
      if (!turn) break;
      out.push(this.shift(turn[0]));
    }
    const ahead = Math.min(this.count, n - out.length - kept);
    for (let i = 0; i < ahead; i++) out.push(this.shift(this.earliestTask()));
    return out;
  }

  /** Every run held back, taken out. */
  takeAll(): ClaimedRun[] {
    const runs = [...this.lines.values()].flat();
    this.lines.clear();
    this.count = 0;
    return runs;
  }

  /** The first task in turn whose line passes `test`, with its line. */
  private firstWith(test: (line: ClaimedRun[]) => boolean): [number, ClaimedRun[]] | undefined {
    for (const entry of this.lines) if (test(entry[1])) return entry;
    return undefined;
  }

  /** The task whose first run is due first (some run is held back). */
  private earliestTask(): number {
    let best: [number, ClaimedRun[]] | undefined;
    for (const entry of this.lines) if (!best || entry[1][0].instant < best[1][0].instant) best = entry;
    return best![0];
  }

  /** The first run of a task's line; the task goes to the back of the turns (or leaves, its line empty). */
  private shift(task: number): ClaimedRun {
    const line = this.lines.get(task)!;
    const run = line.shift()!;
    this.count--;
    this.lines.delete(task);
    if (line.length > 0) this.lines.set(task, line);
    return run;
  }
}

/** Where a run of `instant` goes in `line` (ordered by instant): after the runs of the same instant, or before them (`first`). */
function placeOf(line: readonly ClaimedRun[], instant: number, first: boolean): number {
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (line[mid].instant < instant || (!first && line[mid].instant === instant)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
