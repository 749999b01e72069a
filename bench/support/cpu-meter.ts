import { treeCpuSeconds } from './infra';

/**
 * CPU seconds a set of processes (each with its descendants) use over a window, from /proc. Each
 * `sample()` keeps the last value read per process, so one killed during the window still counts
 * what it used until its last sample.
 */
export class CpuMeter {
  private readonly start: Record<string, number>;
  private readonly last: Record<string, number>;

  constructor(private readonly pids: Record<string, number | null>) {
    this.start = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuSeconds(pid)]));
    this.last = { ...this.start };
  }

  sample(): void {
    for (const [k, pid] of Object.entries(this.pids)) {
      const v = treeCpuSeconds(pid);
      if (!Number.isNaN(v)) this.last[k] = v;
    }
  }

  /** Seconds used since the meter was made, per process (sampled now). */
  used(): Record<string, number> {
    this.sample();
    return Object.fromEntries(Object.keys(this.pids).map((k) => [k, +(this.last[k] - this.start[k]).toFixed(2)]));
  }
}
