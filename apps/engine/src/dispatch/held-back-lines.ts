import { BinaryHeap } from '@baton/scheduling';
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
  /**
   * The earliest instant held back, kept as runs come (CreditGate reads it at every run it holds
   * back: a pass over the tasks each time cost a burst of one-shot tasks n × tasks); null when a
   * run taken may have been it, worked out again when next asked.
   */
  private earliest: number | null = Infinity;

  get size(): number {
    return this.count;
  }

  /** Holds a run back: by instant in its task's line, after the runs of its instant there or (`first`: it was there before them) before them. */
  add(run: ClaimedRun, first: boolean): void {
    const line = this.lines.get(run.taskId);
    if (line) line.splice(placeOf(line, run.instant, first), 0, run);
    else this.lines.set(run.taskId, [run]);
    this.count++;
    if (this.earliest !== null) this.earliest = Math.min(this.earliest, run.instant);
  }

  /** The earliest instant held back (Infinity when none). */
  earliestInstant(): number {
    if (this.earliest === null) {
      let earliest = Infinity;
      for (const line of this.lines.values()) earliest = Math.min(earliest, line[0].instant);
      this.earliest = earliest;
    }
    return this.earliest;
  }

  /**
   * Up to `n` runs taken out: first the runs `dueNow` says are due, the tasks in turn (each gives
   * its first, then goes to the back), then, beyond `kept` of the `n`, runs sent ahead, earliest
   * instant first. One pass over the tasks and a heap of their first runs, not a pass per run: a
   * burst of one-shot tasks sent ahead holds back a run of each of thousands of tasks.
   */
  take(n: number, kept: number, dueNow: (run: ClaimedRun) => boolean): ClaimedRun[] {
    const out: ClaimedRun[] = [];
    // The tasks with a run due, in turn's order: none becomes due during the take (`now` is one instant).
    let turn = [...this.lines].filter(([, line]) => dueNow(line[0])).map(([task]) => task);
    while (out.length < n && turn.length > 0) {
      const still: number[] = [];
      for (const task of turn) {
        if (out.length >= n) break;
        out.push(this.shift(task));
        const line = this.lines.get(task);
        if (line && dueNow(line[0])) still.push(task);
      }
      turn = still;
    }
    const ahead = Math.min(this.count, n - out.length - kept);
    if (ahead <= 0) return out;
    const heads = new BinaryHeap<number>({ initialCapacity: this.lines.size });
    for (const [task, line] of this.lines) heads.enqueue(task, line[0].instant);
    while (out.length < n - kept && heads.size > 0) {
      const task = heads.dequeue()!;
      out.push(this.shift(task));
      const line = this.lines.get(task);
      if (line) heads.enqueue(task, line[0].instant);
    }
    return out;
  }

  /** Every run held back, taken out. */
  takeAll(): ClaimedRun[] {
    const runs = [...this.lines.values()].flat();
    this.lines.clear();
    this.count = 0;
    this.earliest = Infinity;
    return runs;
  }

  /** The first run of a task's line; the task goes to the back of the turns (or leaves, its line empty). */
  private shift(task: number): ClaimedRun {
    const line = this.lines.get(task)!;
    const run = line.shift()!;
    this.count--;
    if (run.instant === this.earliest) this.earliest = null;
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
