import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  deleteLoginThrottleRows,
  deleteQuietLoginThrottleRows,
  inTransaction,
  lockLoginThrottleRows,
  readLoginThrottleRows,
  saveLoginThrottleRow,
  type LoginThrottleState,
} from '@baton/persistence';

/**
 * Slows password guessing without giving anyone a way to lock an account: failed password checks
 * (logins, and the current password of a password change) are counted per (account, client
 * address) and per client address, never per account alone. Once a key has had `freeFailures`
 * failures, each further failure makes it wait before the next attempt — the first wait
 * `baseDelayMs`, each next one twice as long, up to `maxDelayMs` — and an attempt during the wait
 * is refused unchecked (429). So wrong passwords for `operator` from one address delay that
 * address only: `operator` still logs in from its own. No captcha, no hard lock; a key quiet
 * for `forgetAfterMs` (no failure, no wait running) starts over. Every call is given `now`.
 *
 * What this leaves open, knowingly: an attacker with many addresses guesses one account from each
 * at the slowed rate. An account-wide limit would close that only by letting anyone lock the
 * account; bcrypt and the 8-character minimum keep that rate far from what guessing needs, and
 * every wait that starts is logged for the operator to see.
 *
 * The counts live in the database (table `login_throttle`, one row per key, named by the key's
 * SHA-256): every console of a cluster behind a load balancer counts the same failures, so N
 * consoles allow no more guesses than one. A failure costs one short transaction (its two rows
 * locked, in key order); a success deletes the pair's row; quiet keys are swept on each failure.
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
}

export const DEFAULT_LOGIN_THROTTLE_LIMITS: LoginThrottleLimits = {
  freeFailuresPerAccountAddress: 5,
  freeFailuresPerAddress: 20,
  baseDelayMs: 60 * 1000,
  maxDelayMs: 15 * 60 * 1000,
  forgetAfterMs: 15 * 60 * 1000,
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

/**
 * The account a password check is for: its tenant ('' for an operator) and its name as the
 * names are matched — folded where they are matched loosely (MySQL's utf8mb4_unicode_ci, an LDAP
 * directory: every spelling that reaches one account shares its count), as given where they are
 * matched exactly (SQLite: `viewer1` and `Viewer1` are two accounts, and one's failures locked the
 * other out).
 */
export function throttleAccount(tenant: string | null | undefined, username: string, foldsNames = true): string {
  return `${tenant ?? ''}/${foldsNames ? foldedName(username) : username}`;
}

/**
 * A name folded at least as far as the loose matchers fold it: MySQL's utf8mb4_unicode_ci (case,
 * accents, full-width letters, `ß` as `ss`, trailing spaces, ignorable characters such as U+200B)
 * and an LDAP directory (case, NFKC, leading and trailing spaces: `  ERIN` binds as `erin`).
 * Marks, spaces and invisible characters go, the rest is case-folded. Folding further than they
 * do only lets look-alike names share one count from one address; folding less would give each
 * spelling of one account a count of its own.
 */
export function foldedName(name: string): string {
  return name.normalize('NFKD').replace(/[\p{M}\p{C}\p{Z}\s]/gu, '').toUpperCase().toLowerCase();
}

export class LoginThrottle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE_LIMITS,
  ) {}

  /** Milliseconds the attempt must wait (the longer of the pair's and the address's wait), 0 when it may go on. */
  async retryAfterMs(account: string, address: string, now: number): Promise<number> {
    const keys = [pairKey(account, address), addressKey(address)];
    const states = await readLoginThrottleRows(this.dataSource.manager, keys);
    const waits = keys.map((key) => this.live(states.get(key), now)?.waitUntil ?? 0);
    return Math.max(0, ...waits.map((until) => until - now));
  }

  /** Records a failed password check; returns the waits it started (none, the pair's, the address's or both). */
  async recordFailure(account: string, address: string, now: number): Promise<LoginDelay[]> {
    await deleteQuietLoginThrottleRows(this.dataSource.manager, now - this.limits.forgetAfterMs - this.limits.maxDelayMs);
    const pair = pairKey(account, address);
    const addr = addressKey(address);
    return inTransaction(this.dataSource, async (em) => {
      const states = await lockLoginThrottleRows(em, [pair, addr], now);
      const delays: LoginDelay[] = [];
      const pairDelay = this.fail(states.get(pair), this.limits.freeFailuresPerAccountAddress, now);
      await saveLoginThrottleRow(em, pair, pairDelay.state);
      if (pairDelay.delay) delays.push({ kind: 'account-address', account, address, ...pairDelay.delay });
      const addrDelay = this.fail(states.get(addr), this.limits.freeFailuresPerAddress, now);
      await saveLoginThrottleRow(em, addr, addrDelay.state);
      if (addrDelay.delay) delays.push({ kind: 'address', account: null, address, ...addrDelay.delay });
      return delays;
    });
  }

  /** A right password clears the pair; the address keeps its count (one address may try many accounts). */
  async recordSuccess(account: string, address: string): Promise<void> {
    await deleteLoginThrottleRows(this.dataSource.manager, [pairKey(account, address)]);
  }

  private fail(stored: LoginThrottleState | undefined, freeFailures: number, now: number): { state: LoginThrottleState; delay: Omit<LoginDelay, 'kind' | 'account' | 'address'> | null } {
    const before = this.live(stored, now);
    const state = { failures: (before?.failures ?? 0) + 1, lastFailureAt: now, waitUntil: before?.waitUntil ?? 0 };
    if (state.failures < freeFailures) return { state, delay: null };
    const delayMs = Math.min(this.limits.baseDelayMs * 2 ** Math.min(state.failures - freeFailures, 30), this.limits.maxDelayMs);
    state.waitUntil = now + delayMs;
    return { state, delay: { failures: state.failures, delayMs, until: state.waitUntil } };
  }

  /** The key's state, or undefined once it has been quiet long enough to be forgotten. */
  private live(state: LoginThrottleState | undefined, now: number): LoginThrottleState | undefined {
    if (!state || now - Math.max(state.lastFailureAt, state.waitUntil) >= this.limits.forgetAfterMs) return undefined;
    return state;
  }
}

/** Keys are stored as their SHA-256: the table names no account and no address. */
function hashed(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function pairKey(account: string, address: string): string {
  return hashed(`pair:${address} ${account}`);
}

function addressKey(address: string): string {
  return hashed(`addr:${address}`);
}
