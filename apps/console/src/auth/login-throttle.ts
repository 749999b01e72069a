/**
 * Counts failed logins per user name and per client address and locks a key out once it has
 * too many failures within the window; each further lockout of the same key lasts twice as
 * long as the one before, up to a cap. Pure: every call is given `now` (epoch ms).
 *
 * The state lives in the memory of one console process: a cluster of N consoles behind a load
 * balancer lets an attacker try N times as often. That is accepted: the limits stay many orders
 * of magnitude below what a password guesser needs, and a shared store would add a database
 * write to every failed login.
 */
export interface LoginThrottleLimits {
  /** Failures of one user name within `windowMs` that start a lockout. Default 5. */
  maxFailuresPerUser: number;
  /** Failures from one client address within `windowMs` that start a lockout. Default 20. */
  maxFailuresPerAddress: number;
  /** How far back failures count. Default 15 minutes. */
  windowMs: number;
  /** The first lockout of a key; each next one doubles. Default 60 seconds. */
  baseLockoutMs: number;
  /** The longest lockout. Default 15 minutes. */
  maxLockoutMs: number;
  /** Keys tracked before the stale ones are swept (bounds memory under a flood of names). Default 10 000. */
  sweepAboveKeys: number;
}

export const DEFAULT_LOGIN_THROTTLE_LIMITS: LoginThrottleLimits = {
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
  windowMs: 15 * 60 * 1000,
  baseLockoutMs: 60 * 1000,
  maxLockoutMs: 15 * 60 * 1000,
  sweepAboveKeys: 10_000,
};

/** A lockout that a failure has just started (for the operator's log line). */
export interface LoginLockout {
  kind: 'user' | 'address';
  key: string;
  failures: number;
  lockoutMs: number;
  until: number;
}

interface KeyState {
  /** Times of the failures within the window, oldest first. */
  failures: number[];
  lockedUntil: number;
  /** Lockouts so far (the next one lasts baseLockoutMs × 2^lockouts); forgotten once the key has been quiet (no failure, no lockout) for a window. */
  lockouts: number;
  lastFailureAt: number;
}

export class LoginThrottle {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE_LIMITS) {}

  /** Milliseconds the attempt must wait (the longer of the name's and the address's lockout), 0 when it may go on. */
  retryAfterMs(username: string, address: string, now: number): number {
    const locked = [this.state(userKey(username), now), this.state(addressKey(address), now)].map((s) => (s ? s.lockedUntil - now : 0));
    return Math.max(0, ...locked);
  }

  /** Records a failed login; returns the lockouts it started (none, the name's, the address's or both). */
  recordFailure(username: string, address: string, now: number): LoginLockout[] {
    if (this.keys.size > this.limits.sweepAboveKeys) this.sweep(now);
    const lockouts: LoginLockout[] = [];
    const user = this.fail(userKey(username), this.limits.maxFailuresPerUser, now);
    if (user) lockouts.push({ kind: 'user', key: username, ...user });
    const addr = this.fail(addressKey(address), this.limits.maxFailuresPerAddress, now);
    if (addr) lockouts.push({ kind: 'address', key: address, ...addr });
    return lockouts;
  }

  /** A successful login clears the name's failures and lockout history (the address keeps its count: one address may try many names). */
  recordSuccess(username: string): void {
    this.keys.delete(userKey(username));
  }

  private fail(key: string, maxFailures: number, now: number): Omit<LoginLockout, 'kind' | 'key'> | null {
    const state = this.state(key, now) ?? { failures: [], lockedUntil: 0, lockouts: 0, lastFailureAt: now };
    state.failures.push(now);
    state.lastFailureAt = now;
    this.keys.set(key, state);
    if (state.failures.length < maxFailures) return null;
    const failures = state.failures.length;
    const lockoutMs = Math.min(this.limits.baseLockoutMs * 2 ** state.lockouts, this.limits.maxLockoutMs);
    state.lockouts += 1;
    state.lockedUntil = now + lockoutMs;
    state.failures = [];
    return { failures, lockoutMs, until: state.lockedUntil };
  }

  /** The key's state with failures older than the window dropped; undefined (and forgotten) once it is quiet. */
  private state(key: string, now: number): KeyState | undefined {
    const state = this.keys.get(key);
    if (!state) return undefined;
    if (this.isQuiet(state, now)) {
      this.keys.delete(key);
      return undefined;
    }
    const from = now - this.limits.windowMs;
    state.failures = state.failures.filter((t) => t > from);
    return state;
  }

  private isQuiet(state: KeyState, now: number): boolean {
    return now - Math.max(state.lastFailureAt, state.lockedUntil) >= this.limits.windowMs;
  }

  private sweep(now: number): void {
    for (const [key, state] of this.keys) if (this.isQuiet(state, now)) this.keys.delete(key);
  }
}

// MySQL's collation matches user names case-insensitively, so `Admin` and `admin` share a counter.
function userKey(username: string): string {
  return `user:${username.toLowerCase()}`;
}

function addressKey(address: string): string {
  return `addr:${address}`;
}
