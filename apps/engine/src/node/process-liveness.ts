import { hostname } from 'node:os';
import type { EngineNodeRow } from '@baton/persistence';

/** Whether a process with this pid exists on this host (signal 0 tests without signalling). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A node row whose process is certainly gone: it ran on this very host and its pid no longer
 * exists. Lets an embedded engine restarted right after a crash go on at once instead of
 * waiting engineDeadAfterMs for the old row's heartbeat to age. Anything else (another host,
 * a pid that exists — perhaps reused) is not provably dead.
 */
export function provablyDead(node: Pick<EngineNodeRow, 'host' | 'pid'>, thisHost = hostname()): boolean {
  return node.host === thisHost && node.pid !== process.pid && !pidAlive(node.pid);
}
