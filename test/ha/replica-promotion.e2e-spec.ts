import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplicaKill } from '../../bench/support/ha/replica-kill';
import type { HaKill } from '../../bench/support/ha/ha-kills';
import { acquireSuiteLock } from '../cluster/support/suite-lock';

/**
 * Issue 25's second database topology in CI: a MariaDB primary and its semi-synchronous replica
 * (scripts/mariadb-replica.sh) behind HAProxy (scripts/haproxy.sh, BATON_HAPROXY_DATABASE=replica:
 * the one server with read_only=OFF), two engines, two executors. The primary is killed -9 with a
 * burst in flight; the operator promotes the replica a second later (`mariadb-replica.sh
 * promote`); the engines follow the new writer. No run may be lost or run twice, every run ends.
 * The replica is read-only until promoted, so without the promotion nothing could end: the test
 * depends on it (`npm run bench -- ha --db=replica --promote-after=never` shows that case).
 */
describe('high availability: primary killed, replica promoted by the operator', () => {
  let release: (() => void) | undefined;
  let result: HaKill;
  // One cluster test file at a time on the machine (they measure); waiting for the lock is not the test's time.
  beforeAll(async () => {
    release = await acquireSuiteLock(900_000);
  }, 900_000);
  beforeAll(async () => {
    result = await runReplicaKill({ burst: 400, killAt: { dispatched: 130 }, promoteAfterMs: 1_000, semiSync: true, stallMs: 30_000 }, (line) => console.log(`[ha-replica] ${line}`));
    console.log(`[ha-replica] lost ${result.lost}, duplicated ${result.duplicated}, pause ${result.pauseMs} ms, recovery ${result.recoveryMs} ms ${JSON.stringify(result.figures)}`);
  }, 150_000);
  afterAll(() => release?.());

  it('every run ends once, on the promoted replica, and no live engine is taken over', () => {
    expect(result).toMatchObject({ lost: 0, duplicated: 0, figures: { allEnded: true, engineDownAlarms: 0, enginesAlive: 2 } });
    expect(result.figures.newWriter).not.toBe(result.figures.killedNode);
    // Runs ended after the promotion: the engines wrote to the new primary.
    expect(result.figures.firstEndAfterPromotionMs).not.toBeNull();
  });
});
