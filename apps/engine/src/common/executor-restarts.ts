import { Injectable } from '@nestjs/common';
import type { RunKey } from '@baton/protocol';

/** An executor's heartbeat after it (re)started: what its new process holds. */
export interface ExecutorRestart {
  executorId: number;
  tenantId: string;
  /** When its process started (its clock): what it was given before then went with the old one. */
  startedAt: number;
  /** The attempts it holds (queued or running). */
  active: readonly RunKey[];
}

/** How many executors' restarts wait for the watchdog at most (the newest kept). */
const MOST_WAITING = 1_000;
/** How many executors' process starts are remembered (the least lately heard go first: heard again, one more check). */
const MOST_SEEN = 10_000;
/** Restarts a take hands over at most, in all and of one tenant: each costs the watchdog a read. */
export const RESTARTS_A_TAKE = 32;
export const RESTARTS_A_TAKE_PER_TENANT = 4;

/**
 * Heartbeats of executors that (re)started, from where heartbeats are taken (executors/) to the
 * watchdog that ends the attempts their old process took with it (watchdog/, which imports
 * executors/: the hand-over lives below both). Per engine, in memory: each engine that hears an
 * executor's new process checks once; their guarded ends make the checks agree.
 */
@Injectable()
export class ExecutorRestarts {
  private readonly waiting = new Map<number, ExecutorRestart>();
  /** Per executor, the process start last handed over. */
  private readonly seen = new Map<number, number>();

  /** A heartbeat's process start: handed over once per process (the first time this engine hears it). */
  heard(restart: ExecutorRestart): void {
    if (this.seen.get(restart.executorId) === restart.startedAt) return;
    this.seen.delete(restart.executorId);
    this.seen.set(restart.executorId, restart.startedAt);
    for (const id of this.seen.keys()) {
      if (this.seen.size <= MOST_SEEN) break;
      this.seen.delete(id);
    }
    this.waiting.delete(restart.executorId);
    this.waiting.set(restart.executorId, restart);
    for (const id of this.waiting.keys()) {
      if (this.waiting.size <= MOST_WAITING) break;
      this.waiting.delete(id);
    }
  }

  /**
   * Restarts heard and not yet taken, oldest first, at most RESTARTS_A_TAKE and
   * RESTARTS_A_TAKE_PER_TENANT of one tenant; the rest wait for the next take. A tenant whose
   * executors restart over and over (or claim to, a new startedAt in each heartbeat) costs the
   * watchdog a few reads a tick, and other tenants' restarts still get theirs.
   */
  take(): ExecutorRestart[] {
    const taken: ExecutorRestart[] = [];
    const perTenant = new Map<string, number>();
    for (const [executorId, restart] of this.waiting) {
      if (taken.length >= RESTARTS_A_TAKE) break;
      const ofTenant = perTenant.get(restart.tenantId) ?? 0;
      if (ofTenant >= RESTARTS_A_TAKE_PER_TENANT) continue;
      perTenant.set(restart.tenantId, ofTenant + 1);
      taken.push(restart);
      this.waiting.delete(executorId);
    }
    return taken;
  }
}
