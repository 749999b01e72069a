/**
 * Slows password guessing without giving anyone a way to lock an account: failed password checks
 * (logins, and the current password of a password change) are counted per (account, client
 * address) and per client address, never per account alone. Once a key has had `freeFailures`
 * failures, each further failure makes it wait before the next attempt — the first wait
 * `baseDelayMs`, each next one twice as long, up to `maxDelayMs` — and an attempt during the wait
 * is refused unchecked (429). So wrong passwords for `operator` from one address delay that
 * address only: `operator` still logs in from its own. No captcha, no hard lock; a key quiet
 * for `forgetAfterMs` (no failure, no wait running) starts over. Pure: every call is given `now`.
 *
 * What this leaves open, knowingly: an attacker with many addresses guesses one account from each
 * at the slowed rate. An account-wide limit would close that only by letting anyone lock the
 * account; bcrypt and the 8-character minimum keep that rate far from what guessing needs, and
 * every wait that starts is logged for the operator to see.
 *
 * The state lives in the memory of one console process: a cluster of N consoles behind a load
 * balancer lets an attacker try N times as often. That is accepted for the same reason, and a
 * shared store would add a database write to every failed login.
 */
export interface LoginThrottleLimits {
  /** Failures of one account from one client address before that pair waits. Default 5. */
  freeFailuresPerAccountAddress: number;
  /** Failures from one client address, whatever the accounts, before the address waits. Default 20. */
  freeFailuresPerAddress: number;
  /** The first wait of a key; each further failure doubles it. Default 60 seconds. */
  baseDelayMs: number;
  /** The longest wait. Default 15 minutes. */
  maxDelayMs: number;
  /** A key with no failure and no wait for this long is forgotten. Default 15 minutes. */
  forgetAfterMs: number;
  /** Keys tracked before the forgotten ones are swept (bounds memory under a flood of names). Default 10 000. */
  sweepAboveKeys: number;
}

export const DEFAULT_LOGIN_THROTTLE_LIMITS: LoginThrottleLimits = {
  freeFailuresPerAccountAddress: 5,
  freeFailuresPerAddress: 20,
  baseDelayMs: 60 * 1000,
  maxDelayMs: 15 * 60 * 1000,
  forgetAfterMs: 15 * 60 * 1000,
  sweepAboveKeys: 10_000,
};

/** A wait that a failure has just started (for the operator's log line). */
export interface LoginDelay {
  kind: 'account-address' | 'address';
  account: string | null;
  address: string;
  failures: number;
  delayMs: number;
  until: number;
}

interface KeyState {
  /** Failures since the key was last forgotten (or cleared by a success). */
  failures: number;
  lastFailureAt: number;
  waitUntil: number;
}

/**
 * The account a password check is for: its tenant ('' for an operator) and its name, lower-cased
 * because MySQL's collation matches names case-insensitively (`Admin` and `admin` share a count).
 */
export function throttleAccount(tenant: string | null | undefined, username: string): string {
  return `${tenant ?? ''}/${username.toLowerCase()}`;
}

export class LoginThrottle {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE_LIMITS) {}

  /** Milliseconds the attempt must wait (the longer of the pair's and the address's wait), 0 when it may go on. */
  retryAfterMs(account: string, address: string, now: number): number {
    const waits = [pairKey(account, address), addressKey(address)].map((key) => this.state(key, now)?.waitUntil ?? 0);
    return Math.max(0, ...waits.map((until) => until - now));
  }

  /** Records a failed password check; returns the waits it started (none, the pair's, the address's or both). */
  recordFailure(account: string, address: string, now: number): LoginDelay[] {
    if (this.keys.size > this.limits.sweepAboveKeys) this.sweep(now);
    const delays: LoginDelay[] = [];
    const pair = this.fail(pairKey(account, address), this.limits.freeFailuresPerAccountAddress, now);
    if (pair) delays.push({ kind: 'account-address', account, address, ...pair });
    const addr = this.fail(addressKey(address), this.limits.freeFailuresPerAddress, now);
    if (addr) delays.push({ kind: 'address', account: null, address, ...addr });
    return delays;
  }

  /** A right password clears the pair; the address keeps its count (one address may try many accounts). */
  recordSuccess(account: string, address: string): void {
    this.keys.delete(pairKey(account, address));
  }

  private fail(key: string, freeFailures: number, now: number): Omit<LoginDelay, 'kind' | 'account' | 'address'> | null {
    const state = this.state(key, now) ?? { failures: 0, lastFailureAt: now, waitUntil: 0 };
    state.failures += 1;
    state.lastFailureAt = now;
    this.keys.set(key, state);
    if (state.failures < freeFailures) return null;
    const delayMs = Math.min(this.limits.baseDelayMs * 2 ** Math.min(state.failures - freeFailures, 30), this.limits.maxDelayMs);
    state.waitUntil = now + delayMs;
    return { failures: state.failures, delayMs, until: state.waitUntil };
  }

  /** The key's state; undefined (and forgotten) once it has been quiet long enough. */
  private state(key: string, now: number): KeyState | undefined {
    const state = this.keys.get(key);
    if (state && this.isQuiet(state, now)) {
      this.keys.delete(key);
      return undefined;
    }
    return state;
  }

  private isQuiet(state: KeyState, now: number): boolean {
    return now - Math.max(state.lastFailureAt, state.waitUntil) >= this.limits.forgetAfterMs;
  }

  private sweep(now: number): void {
    for (const [key, state] of this.keys) if (this.isQuiet(state, now)) this.keys.delete(key);
  }
}

function pairKey(account: string, address: string): string {
  return `pair:${address} ${account}`;
}

function addressKey(address: string): string {
  return `addr:${address}`;
}
