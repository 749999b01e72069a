import type { LoggerService } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { livenessLockServer } from '@baton/persistence';
import type { LivenessLock } from './liveness-lock';

/** What claims and plans: paused while this node's liveness is not established where it writes. */
interface ClaimLoop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Keeps an engine's claims on the server its liveness lock is held on. Behind a proxy that sends
 * every connection to one Galera node, a failover ends every session on the old writer at once —
 * the lock's with the others. Named locks are local to a node, so until this engine holds its lock
 * again on the new writer, the other engines cannot see it alive there; claiming then would hold
 * runs under a liveness nobody can check. So: lock lost → stop claiming and planning (what is
 * already claimed is still dispatched, guarded by its owner); lock taken again → resume once the
 * pool reaches the same server as the lock (host:port as the server names itself). The heartbeat
 * compares the two as well, for a proxy that moved the pool but not the lock.
 */
export class WriterFollower {
  private pausedSince: number | null = null;
  private unsubscribe: (() => void) | null = null;
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly lock: LivenessLock,
    private readonly loops: readonly ClaimLoop[],
    private readonly running: () => boolean,
    private readonly logger: LoggerService,
  ) {}

  get paused(): boolean {
    return this.pausedSince !== null;
  }

  /** Follows the lock from now on (MySQL/MariaDB with liveness locks on). */
  start(): void {
    this.unsubscribe ??= this.lock.onChange((held) => {
      if (held) void this.check();
      else void this.serially(() => this.pause('its liveness lock was lost with its database session'));
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.pausedSince = null;
  }

  /**
   * Pauses when the lock is not held or the pool reaches another server than the lock; resumes
   * when both are back on one server. A database that does not answer leaves things as they are.
   */
  check(): Promise<void> {
    return this.serially(async () => {
      if (!this.unsubscribe || !this.running()) return;
      const lockServer = this.lock.server;
      if (lockServer === null) return this.pause('its liveness lock is not held');
      let poolServer: string;
      try {
        poolServer = await livenessLockServer(this.dataSource.manager);
      } catch {
        return;
      }
      if (poolServer !== lockServer) return this.pause(`its pool reaches ${poolServer}, its liveness lock is on ${lockServer}`);
      if (this.pausedSince === null || !this.running()) return;
      const pausedMs = Math.round(performance.now() - this.pausedSince);
      this.pausedSince = null;
      for (const loop of this.loops) loop.start();
      this.logger.log(`liveness established on ${lockServer}: claiming again after a ${pausedMs} ms pause`);
    });
  }

  private async pause(why: string): Promise<void> {
    if (this.pausedSince !== null || !this.running()) return;
    this.pausedSince = performance.now();
    this.logger.warn(`claiming paused: ${why} (the database writer changed?); resuming once the lock is held again on the server the pool reaches`);
    for (const loop of this.loops) await loop.stop();
  }

  /** One change at a time: a pause still stopping its loops is never overtaken by a resume. */
  private serially(step: () => Promise<void>): Promise<void> {
    const next = this.busy.then(step, step);
    this.busy = next.catch(() => undefined);
    return next;
  }
}
