import { describe, expect, it } from 'vitest';
import { admitKeyed, releaseKeyed } from './key-admission';
import { keyLabel, keyScope, MAX_KEY_SCOPE_LENGTH, scopeTask } from './key-scope';
import { takeKeyTokens } from './key-bucket';
import { MAX_RUN_KEY_LENGTH, runKeyOf } from './run-key';
import { keyConcurrencyProblems, keyRateLimitProblems, MAX_KEY_GROUP_LENGTH } from './validate-keys';
import { validateTask } from '../task/validate-task';
import { withTaskDefaults } from '../task/task-defaults';
import { canTransition, KEY_GOING_STATES, ACTIVE_STATES } from '../run/run-state';

describe('runKeyOf', () => {
  it('reads strings as themselves and other values as their JSON text', () => {
    expect(runKeyOf({ customerId: 'c-1' }, 'customerId')).toBe('c-1');
    expect(runKeyOf({ customer: { id: 42 } }, 'customer.id')).toBe('42');
    expect(runKeyOf({ a: [true] }, 'a.0')).toBe('true');
    expect(runKeyOf({ a: { b: 1 } }, 'a')).toBe('{"b":1}');
  });

  it('makes a missing, null or empty value the one empty key', () => {
    expect(runKeyOf({}, 'customerId')).toBe('');
    expect(runKeyOf({ customerId: null }, 'customerId')).toBe('');
    expect(runKeyOf({ customerId: '' }, 'customerId')).toBe('');
    expect(runKeyOf(null, 'customerId')).toBe('');
    expect(runKeyOf('text', 'customerId')).toBe('');
  });

  it('cuts a long key to its beginning and a digest of the whole, still telling keys apart', () => {
    const a = runKeyOf({ k: 'x'.repeat(500) + 'a' }, 'k');
    const b = runKeyOf({ k: 'x'.repeat(500) + 'b' }, 'k');
    expect(a.length).toBeLessThanOrEqual(MAX_RUN_KEY_LENGTH);
    expect(a.startsWith('x'.repeat(120))).toBe(true);
    expect(a).not.toBe(b);
    expect(runKeyOf({ k: 'x'.repeat(500) + 'a' }, 'k')).toBe(a);
    expect(runKeyOf({ k: 'y'.repeat(MAX_RUN_KEY_LENGTH) }, 'k')).toBe('y'.repeat(MAX_RUN_KEY_LENGTH));
  });
});

describe('admitKeyed', () => {
  const claimed = ['r1', 'r2', 'r3'];

  it('QUEUE: free places to the oldest, the rest held', () => {
    expect(admitKeyed({ limit: 2, onLimit: 'QUEUE', going: 1, claimed })).toEqual({ admit: ['r1'], hold: ['r2', 'r3'], cancel: [], cancelOldest: 0 });
    expect(admitKeyed({ limit: 5, onLimit: 'QUEUE', going: 0, claimed })).toEqual({ admit: claimed, hold: [], cancel: [], cancelOldest: 0 });
    expect(admitKeyed({ limit: 1, onLimit: 'QUEUE', going: 3, claimed })).toEqual({ admit: [], hold: claimed, cancel: [], cancelOldest: 0 });
  });

  it('CANCEL_NEW: the runs beyond the free places are cancelled', () => {
    expect(admitKeyed({ limit: 1, onLimit: 'CANCEL_NEW', going: 0, claimed })).toEqual({ admit: ['r1'], hold: [], cancel: ['r2', 'r3'], cancelOldest: 0 });
    expect(admitKeyed({ limit: 1, onLimit: 'CANCEL_NEW', going: 1, claimed })).toEqual({ admit: [], hold: [], cancel: claimed, cancelOldest: 0 });
  });

  it('CANCEL_OLDEST: the newest go, going runs are cancelled to keep the limit', () => {
    expect(admitKeyed({ limit: 1, onLimit: 'CANCEL_OLDEST', going: 1, claimed: ['r1'] })).toEqual({ admit: ['r1'], hold: [], cancel: [], cancelOldest: 1 });
    expect(admitKeyed({ limit: 1, onLimit: 'CANCEL_OLDEST', going: 0, claimed })).toEqual({ admit: ['r3'], hold: [], cancel: ['r1', 'r2'], cancelOldest: 0 });
    expect(admitKeyed({ limit: 2, onLimit: 'CANCEL_OLDEST', going: 2, claimed })).toEqual({ admit: ['r2', 'r3'], hold: [], cancel: ['r1'], cancelOldest: 2 });
    expect(admitKeyed({ limit: 3, onLimit: 'CANCEL_OLDEST', going: 1, claimed: ['r1'] })).toEqual({ admit: ['r1'], hold: [], cancel: [], cancelOldest: 0 });
    // A limit lowered below the going runs: enough of them go to keep the new limit.
    expect(admitKeyed({ limit: 1, onLimit: 'CANCEL_OLDEST', going: 3, claimed: ['r1'] })).toEqual({ admit: ['r1'], hold: [], cancel: [], cancelOldest: 3 });
  });

  it('admits nothing from an empty batch', () => {
    for (const onLimit of ['QUEUE', 'CANCEL_NEW', 'CANCEL_OLDEST'] as const) {
      expect(admitKeyed({ limit: 1, onLimit, going: 1, claimed: [] })).toEqual({ admit: [], hold: [], cancel: [], cancelOldest: 0 });
    }
  });
});

describe('releaseKeyed', () => {
  it('gives places oldest first, each held run against its own task\'s limit, and stops at the first that finds none', () => {
    expect(releaseKeyed(0, [{ run: 'a', limit: 1 }, { run: 'b', limit: 1 }])).toEqual({ release: ['a'], going: 1, full: true });
    // A group whose tasks state 1 and 3: the limit-3 run goes beside one going, the limit-1 run after it waits, and so does the younger limit-3 one behind it.
    expect(releaseKeyed(1, [{ run: 'a', limit: 3 }, { run: 'b', limit: 1 }, { run: 'c', limit: 3 }])).toEqual({ release: ['a'], going: 2, full: true });
    expect(releaseKeyed(0, [{ run: 'a', limit: 2 }, { run: 'b', limit: 2 }])).toEqual({ release: ['a', 'b'], going: 2, full: false });
  });

  it('lets a run whose task no longer bounds the key go at once, counted from then on', () => {
    expect(releaseKeyed(5, [{ run: 'a', limit: null }, { run: 'b', limit: 6 }])).toEqual({ release: ['a'], going: 6, full: true });
    expect(releaseKeyed(0, [])).toEqual({ release: [], going: 0, full: false });
  });
});

describe('keyScope', () => {
  it('is the task\'s own without a group, the group\'s with one, and fits its columns', () => {
    expect(keyScope(7)).toBe('t:7');
    expect(keyScope(7, 'customer-sync')).toBe('g:customer-sync');
    expect(keyScope(8, 'customer-sync')).toBe(keyScope(7, 'customer-sync'));
    expect(keyScope(7, 'x'.repeat(MAX_KEY_GROUP_LENGTH)).length).toBe(MAX_KEY_SCOPE_LENGTH);
    expect(keyLabel('t:7', 'c1')).toBe("key 'c1'");
    expect(keyLabel('g:customer-sync', 'c1')).toBe("key 'c1' of group 'customer-sync'");
    expect(scopeTask(keyScope(7))).toBe(7);
    expect(scopeTask(keyScope(7, 'customer-sync'))).toBeNull();
    expect(scopeTask(keyScope(7, 't:8'))).toBeNull();
  });
});

describe('takeKeyTokens', () => {
  const rate = { perSecond: 2, burst: 3 };

  it('a new key starts with a full bucket', () => {
    expect(takeKeyTokens(null, rate, 5, 1000)).toEqual({ taken: 3, bucket: { tokens: 0, at: 1000 }, nextAt: 1500 });
    expect(takeKeyTokens(null, rate, 1, 1000)).toEqual({ taken: 1, bucket: { tokens: 2, at: 1000 }, nextAt: 1000 });
  });

  it('refills at perSecond, never above burst', () => {
    expect(takeKeyTokens({ tokens: 0, at: 1000 }, rate, 1, 1499).taken).toBe(0);
    expect(takeKeyTokens({ tokens: 0, at: 1000 }, rate, 1, 1499).nextAt).toBe(1500);
    expect(takeKeyTokens({ tokens: 0, at: 1000 }, rate, 5, 1500).taken).toBe(1);
    expect(takeKeyTokens({ tokens: 0, at: 1000 }, rate, 5, 100_000).taken).toBe(3);
  });

  it('a slow rate waits whole seconds', () => {
    expect(takeKeyTokens({ tokens: 0.5, at: 0 }, { perSecond: 0.5, burst: 1 }, 1, 0)).toEqual({ taken: 0, bucket: { tokens: 0.5, at: 0 }, nextAt: 1000 });
  });

  it('keeps the time of a failed take so the refill is not lost', () => {
    const first = takeKeyTokens({ tokens: 0, at: 0 }, rate, 1, 250);
    expect(first.taken).toBe(0);
    expect(takeKeyTokens(first.bucket, rate, 1, 500).taken).toBe(1);
  });

  it('a slow key taken from every few seconds still earns its tokens, stored in whole thousandths between takes', () => {
    // One a day, asked every 5 s (a run each claim turn): each take earned 0.06 thousandths, which storing dropped.
    const daily = { perSecond: 1 / 86_400, burst: 1 };
    let bucket = takeKeyTokens(null, daily, 1, 0).bucket;
    let tokenAt: number | null = null;
    for (let now = 5_000; now <= 2 * 86_400_000 && tokenAt === null; now += 5_000) {
      const take = takeKeyTokens(bucket, daily, 1, now);
      if (take.taken === 1) tokenAt = now;
      // As run_keys keeps it: tokens_milli, an integer.
      bucket = { tokens: Math.floor(take.bucket.tokens * 1000 + 1e-6) / 1000, at: take.bucket.at };
    }
    // A day on, less no more than 1 ms of refill a take (the time kept is whole milliseconds, rounded down).
    expect(tokenAt).toBeGreaterThanOrEqual(86_400_000);
    expect(tokenAt).toBeLessThanOrEqual(86_400_000 + (86_400_000 / 5_000) * 1);
  });
});

describe('validation', () => {
  it('accepts null and complete values', () => {
    expect(keyConcurrencyProblems(null)).toEqual([]);
    expect(keyConcurrencyProblems({ key: 'customerId', limit: 1 })).toEqual([]);
    expect(keyConcurrencyProblems({ key: 'a.b', limit: 3, onLimit: 'CANCEL_OLDEST' })).toEqual([]);
    expect(keyRateLimitProblems({ key: 'customerId', perSecond: 0.5 })).toEqual([]);
    expect(keyRateLimitProblems({ key: 'customerId', perSecond: 10, burst: 5 })).toEqual([]);
  });

  it('names each bad field and why', () => {
    expect(keyConcurrencyProblems('x')).toEqual([{ field: 'concurrency', reason: expect.stringContaining('object') }]);
    expect(keyConcurrencyProblems({ limit: 0, onLimit: 'DROP', extra: 1 }).map((e) => e.field)).toEqual(['concurrency.extra', 'concurrency.key', 'concurrency.limit', 'concurrency.onLimit']);
    expect(keyConcurrencyProblems({ key: 'a..b', limit: 1.5 }).map((e) => e.field)).toEqual(['concurrency.key', 'concurrency.limit']);
    expect(keyConcurrencyProblems({ key: 'a', limit: 1001 })[0].reason).toBe('must be at most 1000');
    expect(keyRateLimitProblems({ key: 'a', perSecond: 0 }).map((e) => e.field)).toEqual(['rateLimit.perSecond']);
    // A day is the longest a key's next token may be away: 1e-300 a second put it past any date.
    expect(keyRateLimitProblems({ key: 'a', perSecond: 1e-300 })).toEqual([{ field: 'rateLimit.perSecond', reason: 'must be a number from 1/86400 (one a day) to 10000' }]);
    expect(keyRateLimitProblems({ key: 'a', perSecond: 1 / 86_400 })).toEqual([]);
    expect(keyRateLimitProblems({ key: 'a', perSecond: 1, burst: 0 }).map((e) => e.field)).toEqual(['rateLimit.burst']);
    expect(keyRateLimitProblems([]).map((e) => e.field)).toEqual(['rateLimit']);
  });

  it('accepts a key group by name, or null for none, and refuses anything else naming the field', () => {
    expect(keyConcurrencyProblems({ key: 'customerId', limit: 1, group: 'customer-sync' })).toEqual([]);
    expect(keyConcurrencyProblems({ key: 'customerId', limit: 1, group: null })).toEqual([]);
    expect(keyRateLimitProblems({ key: 'customerId', perSecond: 5, group: 'crm.api_v2' })).toEqual([]);
    expect(keyRateLimitProblems({ key: 'customerId', perSecond: 5, group: 'g'.repeat(MAX_KEY_GROUP_LENGTH) })).toEqual([]);
    for (const group of ['', 'a b', 'g'.repeat(MAX_KEY_GROUP_LENGTH + 1), 'ключ', 42, {}]) {
      expect(keyConcurrencyProblems({ key: 'customerId', limit: 1, group }).map((e) => e.field)).toEqual(['concurrency.group']);
      expect(keyRateLimitProblems({ key: 'customerId', perSecond: 1, group }).map((e) => e.field)).toEqual(['rateLimit.group']);
    }
    expect(keyConcurrencyProblems({ key: 'c', limit: 1, group: 'a/b' })[0].reason).toMatch(/1 to 64 characters/);
    const base = { name: 'sync', executorApp: 'app', handler: 'h', trigger: { kind: 'MANUAL' } };
    expect(validateTask({ ...base, concurrency: { key: 'customerId', limit: 1, group: 'a b' } })).toEqual([{ field: 'concurrency.group', reason: expect.stringContaining('A-Z') }]);
  });

  it('validateTask checks both and withTaskDefaults fills their defaults', () => {
    const base = { name: 'sync', executorApp: 'app', handler: 'h', trigger: { kind: 'MANUAL' } };
    expect(validateTask({ ...base, concurrency: { key: 'customerId', limit: 1 }, rateLimit: { key: 'customerId', perSecond: 1 } })).toEqual([]);
    expect(validateTask({ ...base, concurrency: { key: 'customerId' } })).toEqual([{ field: 'concurrency.limit', reason: 'must be an integer' }]);
    const task = withTaskDefaults({ ...base, concurrency: { key: 'customerId', limit: 1 }, rateLimit: { key: 'c', perSecond: 2 } }, 't');
    expect(task.concurrency).toEqual({ key: 'customerId', limit: 1, onLimit: 'QUEUE' });
    expect(task.rateLimit).toEqual({ key: 'c', perSecond: 2, burst: 1 });
    expect(withTaskDefaults(base, 't')).toMatchObject({ concurrency: null, rateLimit: null });
    // A group is kept; a null one (none) is left out, so the bound reads as one without groups.
    const grouped = withTaskDefaults({ ...base, concurrency: { key: 'c', limit: 1, group: 'sync' }, rateLimit: { key: 'c', perSecond: 1, group: null } }, 't');
    expect(grouped.concurrency).toEqual({ key: 'c', limit: 1, onLimit: 'QUEUE', group: 'sync' });
    expect(grouped.rateLimit).toEqual({ key: 'c', perSecond: 1, burst: 1 });
  });
});

describe('HELD in the run state machine', () => {
  it('is entered from CLAIMED only and left to PENDING or CANCELLED', () => {
    expect(canTransition('CLAIMED', 'HELD')).toBe(true);
    expect(canTransition('PENDING', 'HELD')).toBe(false);
    expect(canTransition('HELD', 'PENDING')).toBe(true);
    expect(canTransition('HELD', 'CANCELLED')).toBe(true);
    expect(canTransition('HELD', 'CLAIMED')).toBe(false);
  });

  it('is active but takes no place of its key', () => {
    expect(ACTIVE_STATES).toContain('HELD');
    expect(KEY_GOING_STATES).not.toContain('HELD');
  });
});
