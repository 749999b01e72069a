import { readFileSync, readlinkSync } from 'node:fs';

/**
 * A thread's time on a CPU, from Linux's per-thread scheduler statistics
 * (`/proc/<pid>/task/<tid>/schedstat`, first field: nanoseconds run). The params check's deadlines
 * are charged in it rather than in wall time, so that a machine busy with other work does not make
 * an ordinary schema look too costly (a compile of 100 ms of CPU takes a second of wall time on 2
 * cores with 15 runnable threads). The kernel brings a running thread's figure up to date at its
 * scheduler tick (a few ms), so a difference of two readings is right within a tick: fine against
 * deadlines of 50 ms and more. Elsewhere than on Linux, none: the callers fall back to wall time.
 */

/** The calling thread's OS thread id, or 0 where it cannot be had. */
export function ownThreadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop()) || 0;
  } catch {
    return 0;
  }
}

/** Nanoseconds thread `tid` of this process has run, or null (no such thread, not Linux). */
export function threadCpuNs(tid: number): bigint | null {
  if (tid <= 0) return null;
  try {
    return BigInt(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ', 1)[0]);
  } catch {
    return null;
  }
}
