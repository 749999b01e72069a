import { treeCpuSeconds, treeSleeps } from './infra';

/**
 * CPU seconds a set of processes (each with its descendants) use over a window, from /proc, and
 * how many times they went to sleep (each a wake-up: treeSleeps). Each `sample()` keeps the last
 * values read per process, so one killed during the window still counts what it used until its
 * last sample.
 */
export class CpuMeter {
  private readonly start: Record<string, { cpu: number; sleeps: number }>;
  private readonly last: Record<string, { cpu: number; sleeps: number }>;

  constructor(private readonly pids: Record<string, number | null>) {
    this.start = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, { cpu: treeCpuSeconds(pid), sleeps: treeSleeps(pid) }]));
    this.last = { ...this.start };
  }

  sample(): void {
    for (const [k, pid] of Object.entries(this.pids)) {
      const cpu = treeCpuSeconds(pid);
      const sleeps = treeSleeps(pid);
      if (!Number.isNaN(cpu) && !Number.isNaN(sleeps)) this.last[k] = { cpu, sleeps };
    }
  }

  /** Seconds used since the meter was made, per process (sampled now). */
  used(): Record<string, number> {
    this.sample();
    return Object.fromEntries(Object.keys(this.pids).map((k) => [k, +(this.last[k].cpu - this.start[k].cpu).toFixed(2)]));
  }

  /** Times each process went to sleep since the meter was made (as of the last sample: call after `used()`). */
  slept(): Record<string, number> {
    return Object.fromEntries(Object.keys(this.pids).map((k) => [k, this.last[k].sleeps - this.start[k].sleeps]));
  }
}
