import { describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_THROTTLE_LIMITS, LoginThrottle, throttleAccount } from './login-throttle';

const MIN = 60_000;
const T0 = 1_700_000_000_000;
const OPERATOR = throttleAccount(null, 'operator');
const ALICE = throttleAccount('acme', 'alice');

function fail(throttle: LoginThrottle, n: number, account: string, address: string, now: number) {
  return Array.from({ length: n }, () => throttle.recordFailure(account, address, now)).flat();
}

describe('LoginThrottle', () => {
  it('five wrong passwords for an account from one address make that address wait; the account logs in from any other', () => {
    const throttle = new LoginThrottle();
    expect(fail(throttle, 4, OPERATOR, '10.0.0.1', T0)).toEqual([]);
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0)).toBe(0);
    expect(throttle.recordFailure(OPERATOR, '10.0.0.1', T0 + 1000)).toEqual([
      { kind: 'account-address', account: OPERATOR, address: '10.0.0.1', failures: 5, delayMs: MIN, until: T0 + 1000 + MIN },
    ]);
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 1000)).toBe(MIN);
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.2', T0 + 1000)).toBe(0);
    expect(throttle.retryAfterMs(ALICE, '10.0.0.1', T0 + 1000)).toBe(0);
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 1000 + MIN)).toBe(0);
  });

  it('spreading the failures over many addresses makes no address wait and locks nobody out', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 200; i++) expect(throttle.recordFailure(OPERATOR, `10.1.${i >> 8}.${i & 255}`, T0)).toEqual([]);
    expect(throttle.retryAfterMs(OPERATOR, '10.2.0.1', T0)).toBe(0);
  });

  it('each further failure doubles the wait, up to 15 minutes', () => {
    const throttle = new LoginThrottle();
    const [first] = fail(throttle, 5, ALICE, 'a', T0);
    const lengths = [first.delayMs];
    let now = first.until;
    for (let i = 0; i < 6; i++) {
      const [delay] = throttle.recordFailure(ALICE, 'a', now);
      lengths.push(delay.delayMs);
      now = delay.until;
    }
    expect(lengths).toEqual([1, 2, 4, 8, 15, 15, 15].map((m) => m * MIN));
  });

  it('forgets a key quiet for 15 minutes after its last failure or wait', () => {
    const throttle = new LoginThrottle();
    fail(throttle, 4, ALICE, 'a', T0);
    expect(throttle.recordFailure(ALICE, 'a', T0 + 15 * MIN)).toEqual([]);
    const [delay] = fail(throttle, 4, ALICE, 'a', T0 + 15 * MIN);
    expect(delay.delayMs).toBe(MIN);
    expect(throttle.recordFailure(ALICE, 'a', delay.until + 15 * MIN)).toEqual([]);
  });

  it('a right password clears the pair, not the address', () => {
    const throttle = new LoginThrottle();
    fail(throttle, 4, ALICE, 'a', T0);
    throttle.recordSuccess(ALICE, 'a');
    expect(fail(throttle, 4, ALICE, 'a', T0)).toEqual([]);
    const delays = Array.from({ length: 12 }, (_, i) => throttle.recordFailure(throttleAccount('acme', `user${i}`), 'a', T0)).flat();
    expect(delays).toEqual([{ kind: 'address', account: null, address: 'a', failures: 20, delayMs: MIN, until: T0 + MIN }]);
    throttle.recordSuccess(throttleAccount('acme', 'carol'), 'a');
    expect(throttle.retryAfterMs(throttleAccount('acme', 'carol'), 'a', T0)).toBe(MIN);
  });

  it('makes an address wait after 20 failures spread over many accounts, that address only', () => {
    const throttle = new LoginThrottle();
    Array.from({ length: 20 }, (_, i) => throttle.recordFailure(throttleAccount(null, `user${i}`), '10.0.0.1', T0));
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 30_000)).toBe(30_000);
    expect(throttle.retryAfterMs(OPERATOR, '10.0.0.2', T0 + 30_000)).toBe(0);
  });

  it('counts an account by its tenant and its name regardless of case', () => {
    expect(throttleAccount('acme', 'Alice')).toBe(throttleAccount('acme', 'alice'));
    expect(throttleAccount('acme', 'alice')).not.toBe(throttleAccount('beta', 'alice'));
    expect(throttleAccount(null, 'alice')).not.toBe(throttleAccount('acme', 'alice'));
  });

  it('sweeps forgotten keys once it tracks too many', () => {
    const throttle = new LoginThrottle({ ...DEFAULT_LOGIN_THROTTLE_LIMITS, sweepAboveKeys: 4 });
    for (let i = 0; i < 4; i++) throttle.recordFailure(throttleAccount(null, `user${i}`), 'a', T0);
    throttle.recordFailure(throttleAccount(null, 'late'), 'b', T0 + 16 * MIN);
    expect((throttle as unknown as { keys: Map<string, unknown> }).keys.size).toBe(2);
  });
});
