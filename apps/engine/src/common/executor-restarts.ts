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
    this.seen.set(restart.executorId, restart.startedAt);
    this.waiting.delete(restart.executorId);
    this.waiting.set(restart.executorId, restart);
    for (const id of this.waiting.keys()) {
      if (this.waiting.size <= MOST_WAITING) break;
      this.waiting.delete(id);
    }
  }

  /** The restarts heard since the last take. */
  take(): ExecutorRestart[] {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    return all;
  }
}
