import { beforeEach, describe, expect, it } from 'vitest';
import { LoginThrottleEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { LoginThrottle, throttleAccount } from './login-throttle';

const MIN = 60_000;
const T0 = 1_700_000_000_000;
const OPERATOR = throttleAccount(null, 'operator');
const ALICE = throttleAccount('acme', 'alice');

async function fail(throttle: LoginThrottle, n: number, account: string, address: string, now: number) {
  const delays = [];
  for (let i = 0; i < n; i++) delays.push(...(await throttle.recordFailure(account, address, now)));
  return delays;
}

describe.each(TEST_DATABASES)('LoginThrottle on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());
  const newThrottle = () => new LoginThrottle(db.dataSource);

  it('five wrong passwords for an account from one address make that address wait; the account logs in from any other', async () => {
    const throttle = newThrottle();
    expect(await fail(throttle, 4, OPERATOR, '10.0.0.1', T0)).toEqual([]);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0)).toBe(0);
    expect(await throttle.recordFailure(OPERATOR, '10.0.0.1', T0 + 1000)).toEqual([
      { kind: 'account-address', account: OPERATOR, address: '10.0.0.1', failures: 5, delayMs: MIN, until: T0 + 1000 + MIN },
    ]);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 1000)).toBe(MIN);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.2', T0 + 1000)).toBe(0);
    expect(await throttle.retryAfterMs(ALICE, '10.0.0.1', T0 + 1000)).toBe(0);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 1000 + MIN)).toBe(0);
  });

  it('spreading the failures over many addresses makes no address wait and locks nobody out', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < 200; i++) expect(await throttle.recordFailure(OPERATOR, `10.1.${i >> 8}.${i & 255}`, T0)).toEqual([]);
    expect(await throttle.retryAfterMs(OPERATOR, '10.2.0.1', T0)).toBe(0);
  });

  it('each further failure doubles the wait, up to 15 minutes', async () => {
    const throttle = newThrottle();
    const [first] = await fail(throttle, 5, ALICE, 'a', T0);
    const lengths = [first.delayMs];
    let now = first.until;
    for (let i = 0; i < 6; i++) {
      const [delay] = await throttle.recordFailure(ALICE, 'a', now);
      lengths.push(delay.delayMs);
      now = delay.until;
    }
    expect(lengths).toEqual([1, 2, 4, 8, 15, 15, 15].map((m) => m * MIN));
  });

  it('forgets a key quiet for 15 minutes after its last failure or wait', async () => {
    const throttle = newThrottle();
    await fail(throttle, 4, ALICE, 'a', T0);
    expect(await throttle.recordFailure(ALICE, 'a', T0 + 15 * MIN)).toEqual([]);
    const [delay] = await fail(throttle, 4, ALICE, 'a', T0 + 15 * MIN);
    expect(delay.delayMs).toBe(MIN);
    expect(await throttle.recordFailure(ALICE, 'a', delay.until + 15 * MIN)).toEqual([]);
  });

  it('a right password clears the pair, not the address', async () => {
    const throttle = newThrottle();
    await fail(throttle, 4, ALICE, 'a', T0);
    await throttle.recordSuccess(ALICE, 'a');
    expect(await fail(throttle, 4, ALICE, 'a', T0)).toEqual([]);
    const delays = [];
    for (let i = 0; i < 12; i++) delays.push(...(await throttle.recordFailure(throttleAccount('acme', `user${i}`), 'a', T0)));
    expect(delays).toEqual([{ kind: 'address', account: null, address: 'a', failures: 20, delayMs: MIN, until: T0 + MIN }]);
    await throttle.recordSuccess(throttleAccount('acme', 'carol'), 'a');
    expect(await throttle.retryAfterMs(throttleAccount('acme', 'carol'), 'a', T0)).toBe(MIN);
  });

  it('makes an address wait after 20 failures spread over many accounts, that address only', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < 20; i++) await throttle.recordFailure(throttleAccount(null, `user${i}`), '10.0.0.1', T0);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.1', T0 + 30_000)).toBe(30_000);
    expect(await throttle.retryAfterMs(OPERATOR, '10.0.0.2', T0 + 30_000)).toBe(0);
  });

  it('counts an account by its tenant and its name folded as loose matchers fold it (case, spaces, accents, width, invisible characters)', async () => {
    for (const spelling of ['Alice', '  alice', 'alice ', 'ALİCE', 'álice', 'ａｌｉｃｅ', 'al\u200bice', 'al\u00adice', '\u00a0alice\t']) {
      expect(throttleAccount('acme', spelling), spelling).toBe(throttleAccount('acme', 'alice'));
    }
    expect(throttleAccount('acme', 'straße')).toBe(throttleAccount('acme', 'STRASSE'));
    expect(throttleAccount('acme', 'alice')).not.toBe(throttleAccount('acme', 'alicia'));
    expect(throttleAccount('acme', 'alice')).not.toBe(throttleAccount('beta', 'alice'));
    expect(throttleAccount(null, 'alice')).not.toBe(throttleAccount('acme', 'alice'));
    // Where names are matched exactly (SQLite), each spelling is an account of its own.
    expect(throttleAccount('acme', 'Alice', false)).not.toBe(throttleAccount('acme', 'alice', false));
  });

  it('sweeps keys quiet long enough to be forgotten, and stores neither account nor address', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < 4; i++) await throttle.recordFailure(throttleAccount(null, `user${i}`), 'a', T0);
    await throttle.recordFailure(throttleAccount(null, 'late'), 'b', T0 + 31 * MIN);
    const rows = await db.dataSource.getRepository(LoginThrottleEntity).find();
    expect(rows).toHaveLength(2); // the late pair and address b
    for (const row of rows) expect(row.key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('counts the failures of every console on the database together (N consoles allow no more guesses than one)', async () => {
    const consoles = [newThrottle(), newThrottle(), newThrottle()];
    const delays = await Promise.all(Array.from({ length: 5 }, (_, i) => consoles[i % 3].recordFailure(ALICE, '10.0.0.9', T0)));
    expect(delays.flat()).toEqual([{ kind: 'account-address', account: ALICE, address: '10.0.0.9', failures: 5, delayMs: MIN, until: T0 + MIN }]);
    for (const c of consoles) expect(await c.retryAfterMs(ALICE, '10.0.0.9', T0 + 1000)).toBe(MIN - 1000);
  });
});
