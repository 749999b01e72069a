import { describe, expect, it } from 'vitest';
import { Logger } from '@nestjs/common';
import { livenessLockServer } from '@baton/persistence';
import { useTestDatabase } from '../../../../test/support/databases';
import { claimSide, testConfig } from '../testing/engine-test-kit';
import { eventually } from '../testing/eventually';
import { WriterFollower } from './writer-follower';

/** A claim loop that records what was done to it, and whether the lock was held at that moment. */
function recordingLoop(lockHeld: () => boolean) {
  const events: string[] = [];
  return {
    events,
    start: () => void events.push(`start (lock ${lockHeld() ? 'held' : 'lost'})`),
    stop: async () => void events.push(`stop (lock ${lockHeld() ? 'held' : 'lost'})`),
  };
}

// The database-level half of issue 25's engine rule; the Galera half (a real writer change,
// a pool and a lock on two nodes) is test/ha/writer-change.e2e-spec.ts.
describe('writer follower on mysql: no claiming without liveness where the engine writes', () => {
  const db = useTestDatabase('mysql');

  it('stops claiming when its lock session ends, and claims again only once the lock is held again on the server its pool reaches', async () => {
    const side = claimSide(db.dataSource, testConfig({ nodeId: 'engine-w', livenessPollMs: 250 }));
    const loop = recordingLoop(() => side.lock.session !== null);
    const follower = new WriterFollower(db.dataSource, side.lock, [loop], () => true, new Logger('test'));
    try {
      await side.node.register('http://w');
      follower.start();
      await follower.check();
      expect(loop.events).toEqual([]); // held where the pool writes: nothing to do
      expect(side.lock.server).toBe(await livenessLockServer(db.dataSource.manager));

      // What a failover does to every session on the old writer: the server ends the lock's.
      const [{ holder }] = await db.dataSource.query(
        "SELECT IS_USED_LOCK(CONCAT('baton.', LEFT(SHA2(CONCAT(DATABASE(), '/', ?), 256), 40))) AS holder",
        ['engine-w'],
      );
      expect(Number(holder)).toBeGreaterThan(0);
      await db.dataSource.query(`KILL CONNECTION ${Number(holder)}`);

      await eventually(() => follower.paused, 'claiming paused');
      await eventually(() => side.lock.session !== null, 'lock retaken');
      await eventually(() => loop.events.length === 2, 'claiming resumed');
      expect(loop.events).toEqual(['stop (lock lost)', 'start (lock held)']);
      expect(follower.paused).toBe(false);
      expect(side.lock.server).toBe(await livenessLockServer(db.dataSource.manager));
    } finally {
      follower.stop();
      await side.node.markDown();
    }
  });

  it('does nothing while the engine is not running (a stop in progress is not undone by a resume)', async () => {
    const side = claimSide(db.dataSource, testConfig({ nodeId: 'engine-s', livenessPollMs: 250 }));
    const loop = recordingLoop(() => side.lock.session !== null);
    const follower = new WriterFollower(db.dataSource, side.lock, [loop], () => false, new Logger('test'));
    try {
      await side.node.register('http://s');
      follower.start();
      await side.lock.release();
      await follower.check();
      expect(follower.paused).toBe(false);
      expect(loop.events).toEqual([]);
    } finally {
      follower.stop();
      await side.node.markDown();
    }
  });
});
