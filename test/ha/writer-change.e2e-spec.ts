import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { EngineNodeEntity, findFreeLivenessLocks, openDatabase } from '@baton/persistence';
import { HaServers } from '../../bench/support/ha/ha-servers';
import { openTestDatabase, type TestDatabase } from '../support/databases';
import { claimSide, testConfig } from '../../apps/engine/src/testing/engine-test-kit';
import { EngineNodeService } from '../../apps/engine/src/node/engine-node.service';
import { GroupPeers } from '../../apps/engine/src/common/group-peers';
import { NodeLiveness } from '../../apps/engine/src/common/node-liveness';
import { LivenessLock } from '../../apps/engine/src/node/liveness-lock';
import { TakeoverService } from '../../apps/engine/src/node/takeover/takeover.service';
import { WriterFollower } from '../../apps/engine/src/node/writer-follower';
import { EngineMetrics } from '../../apps/engine/src/metrics/engine-metrics';
import { ManualClock } from '@baton/domain';
import { acquireSuiteLock } from '../cluster/support/suite-lock';

/**
 * Issue 25's engine rule on a real Galera cluster (scripts/galera.sh): named locks are local to a
 * node — engine A's liveness lock, held on node 1, is free on node 2. An engine B whose pool
 * reached node 2 while its lock stayed on node 1 (two proxies disagreeing for a moment) must
 * neither take A over (it reads A's lock on its own lock session, on node 1, where it is held)
 * nor claim (its pool and its lock are on different servers).
 */
describe('engine liveness on Galera: locks are per node', () => {
  let servers: HaServers;
  let db: TestDatabase;
  let release: (() => void) | undefined;
  const opened: DataSource[] = [];
  const onNode = async (node: number): Promise<DataSource> => {
    const url = new URL(db.url);
    url.port = String(18300 + node);
    const ds = await openDatabase(url.toString());
    opened.push(ds);
    return ds;
  };

  // The HA servers are shared with ha-kills.e2e-spec.ts, which kills them: one file at a time.
  beforeAll(async () => {
    release = await acquireSuiteLock(900_000);
  }, 900_000);
  beforeAll(async () => {
    servers = await HaServers.start((line) => console.log(`[ha] ${line}`));
    db = await openTestDatabase('mysql', { mysqlServerUrl: servers.databaseServerUrl });
  }, 240_000);
  afterAll(async () => {
    for (const ds of opened) await ds.destroy().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await servers?.release();
    release?.();
  }, 120_000);

  it('an engine whose pool reaches another node than its lock takes no live engine over and does not claim', async () => {
    const clock = new ManualClock(Date.now());
    const node1 = await onNode(1);
    const node2 = await onNode(2);
    const a = claimSide(node1, testConfig({ nodeId: 'engine-a', livenessPollMs: 250 }), clock);
    const configB = testConfig({ nodeId: 'engine-b', livenessPollMs: 250 });
    const lockB = new LivenessLock(node1, configB); // B's lock on node 1 …
    const nodeB = new EngineNodeService(node2, configB, clock, lockB, new NodeLiveness(configB, clock)); // … its pool on node 2
    const takeoverB = new TakeoverService(node2, configB, clock, new EngineMetrics({ defaultMetrics: false }), lockB, new GroupPeers(node2, configB, clock));
    const claims: string[] = [];
    const followerB = new WriterFollower(node2, lockB, [{ start: () => void claims.push('start'), stop: async () => void claims.push('stop') }], () => true, new Logger('test'));
    try {
      await a.node.register('http://a');
      await nodeB.register('http://b');
      // What the pool of B would say: on node 2, A's lock is free.
      expect(await findFreeLivenessLocks(node2.manager, ['engine-a'])).toEqual(['engine-a']);
      // B reads it where its own lock is held: A is alive, twice (seen held, then still held).
      expect(await takeoverB.runByLocks()).toEqual([]);
      expect(await takeoverB.runByLocks()).toEqual([]);
      expect(await node2.getRepository(EngineNodeEntity).findOneByOrFail({ id: 'engine-a' })).toMatchObject({ state: 'UP' });
      // And B stops claiming: its claims would land where its liveness cannot be seen.
      followerB.start();
      await followerB.check();
      expect(followerB.paused).toBe(true);
      expect(claims).toEqual(['stop']);
      expect(lockB.server).toMatch(/:18301$/);
    } finally {
      followerB.stop();
      await nodeB.markDown().catch(() => undefined);
      await a.node.markDown().catch(() => undefined);
    }
  });
});
