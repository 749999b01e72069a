import { describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_THROTTLE_LIMITS, LoginThrottle } from './login-throttle';

const MIN = 60_000;
const T0 = 1_700_000_000_000;

function failTimes(throttle: LoginThrottle, n: number, username: string, address: string, now: number) {
  return Array.from({ length: n }, () => throttle.recordFailure(username, address, now)).flat();
}

describe('LoginThrottle', () => {
  it('locks a user name out after 5 failures within 15 minutes, from any address', () => {
    const throttle = new LoginThrottle();
    expect(failTimes(throttle, 4, 'alice', '10.0.0.1', T0)).toEqual([]);
    expect(throttle.retryAfterMs('alice', '10.0.0.1', T0)).toBe(0);
    const lockouts = throttle.recordFailure('alice', '10.0.0.2', T0 + 1000);
    expect(lockouts).toEqual([{ kind: 'user', key: 'alice', failures: 5, lockoutMs: MIN, until: T0 + 1000 + MIN }]);
    expect(throttle.retryAfterMs('alice', '10.0.0.9', T0 + 1000)).toBe(MIN);
    expect(throttle.retryAfterMs('ALICE', '10.0.0.9', T0 + 1000)).toBe(MIN);
    expect(throttle.retryAfterMs('bob', '10.0.0.9', T0 + 1000)).toBe(0);
    expect(throttle.retryAfterMs('alice', '10.0.0.9', T0 + 1000 + MIN)).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const throttle = new LoginThrottle();
    failTimes(throttle, 4, 'alice', 'a', T0);
    expect(throttle.recordFailure('alice', 'a', T0 + 15 * MIN)).toEqual([]);
    expect(throttle.retryAfterMs('alice', 'a', T0 + 15 * MIN)).toBe(0);
  });

  it('doubles each next lockout of the same name, up to 15 minutes', () => {
    const throttle = new LoginThrottle();
    const lengths: number[] = [];
    let now = T0;
    for (let i = 0; i < 6; i++) {
      const [lockout] = failTimes(throttle, 5, 'alice', `10.0.0.${i}`, now);
      lengths.push(lockout.lockoutMs);
      now = lockout.until;
    }
    expect(lengths).toEqual([1, 2, 4, 8, 15, 15].map((m) => m * MIN));
  });

  it('a successful login resets the name (failures and lockout history), not the address', () => {
    const throttle = new LoginThrottle();
    failTimes(throttle, 4, 'alice', 'a', T0);
    throttle.recordSuccess('alice');
    expect(failTimes(throttle, 4, 'alice', 'a', T0)).toEqual([]);
    expect(throttle.retryAfterMs('alice', 'a', T0)).toBe(0);
    const [lockout] = failTimes(throttle, 12, 'bob', 'a', T0).filter((l) => l.kind === 'address');
    expect(lockout).toMatchObject({ kind: 'address', key: 'a', failures: 20, lockoutMs: MIN });
    throttle.recordSuccess('carol');
    expect(throttle.retryAfterMs('carol', 'a', T0)).toBe(MIN);
  });

  it('locks an address out after 20 failures spread over many names', () => {
    const throttle = new LoginThrottle();
    const lockouts = Array.from({ length: 20 }, (_, i) => throttle.recordFailure(`user${i}`, '10.0.0.1', T0)).flat();
    expect(lockouts).toEqual([{ kind: 'address', key: '10.0.0.1', failures: 20, lockoutMs: MIN, until: T0 + MIN }]);
    expect(throttle.retryAfterMs('someone-else', '10.0.0.1', T0 + 30_000)).toBe(30_000);
    expect(throttle.retryAfterMs('someone-else', '10.0.0.2', T0 + 30_000)).toBe(0);
  });

  it('sweeps quiet keys once it tracks too many', () => {
    const throttle = new LoginThrottle({ ...DEFAULT_LOGIN_THROTTLE_LIMITS, sweepAboveKeys: 4 });
    for (let i = 0; i < 4; i++) throttle.recordFailure(`user${i}`, 'a', T0);
    throttle.recordFailure('late', 'b', T0 + 16 * MIN);
    expect((throttle as unknown as { keys: Map<string, unknown> }).keys.size).toBe(2);
  });
});
