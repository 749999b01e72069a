import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_ALARMS_PER_CALLBACK } from '@baton/protocol';
import { backoffDelay } from './backoff';
import { LogTail, truncateUtf8 } from './log-tail';
import { EXECUTOR_DEFAULTS, resolveExecutorOptions, type ExecutorOptions } from './options';
import { WorkerPool } from './pool';
import { RequestSlots } from './request-slots';
import { CallbackSpool, type SpoolEntry } from './spool';
import { defineHandler } from './handler';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-sdk-parts-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const entry = (runId: number): SpoolEntry => ({ id: `${runId}:1`, at: 1, urls: ['http://e'], callback: { runId, attempt: 1, tenantId: 't', outcome: 'SUCCEEDED' } });

describe('LogTail', () => {
  it('keeps the last maxLines lines and says how many it dropped', () => {
    const tail = new LogTail({ maxLines: 3, maxBytes: 1000, maxLineBytes: 100 });
    for (let i = 1; i <= 5; i++) tail.write('info', `l${i}`, [], i);
    const lines = tail.lines();
    expect(lines.map((l) => l.message)).toEqual([expect.stringMatching(/2 earlier line\(s\) dropped/), 'l3', 'l4', 'l5']);
    expect(lines[0]).toMatchObject({ level: 'warn', at: 3 });
  });

  it('keeps within maxBytes and cuts long lines on a character boundary', () => {
    const tail = new LogTail({ maxLines: 100, maxBytes: 10, maxLineBytes: 100 });
    tail.write('info', 'aaaa', []);
    tail.write('info', 'bbbb', []);
    tail.write('info', 'cccc', []);
    expect(tail.lines().slice(1).map((l) => l.message)).toEqual(['bbbb', 'cccc']);
    expect(truncateUtf8('ééééé', 8, '…')).toBe('éé…'); // 2-byte chars, '…' is 3 bytes
    expect(truncateUtf8('short', 8)).toBe('short');
  });

  it('forgets the lines an engine took, and counts as dropped only lines lost before they were sent', () => {
    const tail = new LogTail({ maxLines: 3, maxBytes: 1000, maxLineBytes: 100 });
    tail.write('info', 'l1', []);
    tail.write('info', 'l2', []);
    const sentUpTo = tail.mark; // an interim callback carries l1, l2
    tail.write('info', 'l3', []);
    tail.write('info', 'l4', []); // l1 leaves the buffer: it was sent, so not "dropped"
    tail.delivered(sentUpTo);
    expect(tail.lines().map((l) => l.message)).toEqual(['l3', 'l4']);
    for (let i = 5; i <= 8; i++) tail.write('info', `l${i}`, []);
    expect(tail.lines().map((l) => l.message)).toEqual([expect.stringMatching(/^\[baton\] log truncated: 3 earlier line\(s\) dropped/), 'l6', 'l7', 'l8']);
    tail.delivered(sentUpTo); // an old answer changes nothing
    expect(tail.size).toBe(3);
  });

  it('formats arguments like console.log and has no marker when nothing was dropped', () => {
    const tail = new LogTail({ maxLines: 10, maxBytes: 1000, maxLineBytes: 100 });
    tail.write('error', 'n=%d o=%j', [5, { a: 1 }]);
    expect(tail.lines()).toEqual([{ at: expect.any(Number), level: 'error', message: 'n=5 o={"a":1}' }]);
  });
});

describe('backoffDelay', () => {
  it('grows exponentially from the base, capped, with jitter between half and all of it', () => {
    expect(backoffDelay(1, 200, 30_000, () => 0)).toBe(100);
    expect(backoffDelay(1, 200, 30_000, () => 1)).toBe(200);
    expect(backoffDelay(4, 200, 30_000, () => 1)).toBe(1600);
    expect(backoffDelay(50, 200, 30_000, () => 1)).toBe(30_000);
    expect(backoffDelay(50, 200, 30_000, () => 0)).toBe(15_000);
  });
});

describe('RequestSlots', () => {
  it('runs at most `limit` tasks at once and starts the others in turn as slots free up', async () => {
    const slots = new RequestSlots(2);
    const started: number[] = [];
    const releases = new Map<number, () => void>();
    const task = (n: number) => slots.run(() => (started.push(n), new Promise<number>((r) => releases.set(n, () => r(n)))));
    const results = [1, 2, 3, 4].map(task);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2]);
    releases.get(2)!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2, 3]);
    releases.get(1)!();
    releases.get(3)!();
    await new Promise((r) => setImmediate(r));
    releases.get(4)!();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4]);
  });

  it('gives the slot of a task still running after giveBackAfterMs to the next one, which need not wait for it', async () => {
    const slots = new RequestSlots(1);
    let releaseHanging!: () => void;
    const hanging = slots.run(() => new Promise<string>((r) => (releaseHanging = () => r('late'))), 20);
    expect(await slots.run(() => Promise.resolve('next'))).toBe('next');
    releaseHanging();
    expect(await hanging).toBe('late');
    // Its late end does not free a slot twice: one task at a time still.
    const started: number[] = [];
    const releases = new Map<number, () => void>();
    const task = (n: number) => slots.run(() => (started.push(n), new Promise<number>((r) => releases.set(n, () => r(n)))));
    const results = [1, 2].map(task);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1]);
    releases.get(1)!();
    await vi.waitFor(() => expect(started).toEqual([1, 2]), { timeout: 10_000, interval: 1 });
    releases.get(2)!();
    expect(await Promise.all(results)).toEqual([1, 2]);
  });
});

describe('WorkerPool', () => {
  it('runs at most `concurrency`, queues up to `queueLimit`, refuses beyond, and starts jobs on a later turn', async () => {
    const started: number[] = [];
    const releases = new Map<number, () => void>();
    const pool = new WorkerPool<number>(2, 1, (n) => {
      started.push(n);
      return new Promise<void>((r) => releases.set(n, r));
    });
    expect([pool.tryAdd(1), pool.tryAdd(2), pool.tryAdd(3), pool.tryAdd(4)]).toEqual(['started', 'started', 'queued', false]);
    expect(started).toEqual([]); // not synchronously
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([1, 2]);
    releases.get(1)!();
    await vi.waitFor(() => expect(started).toEqual([1, 2, 3]), { timeout: 10_000, interval: 1 }); // its slot freed: the queued job goes
    releases.get(2)!();
    releases.get(3)!();
    await pool.whenIdle();
    expect(pool.running + pool.queued).toBe(0);
  });

  it("gives each line its turn: another task's job waits for one job of a backlog, not all of it", async () => {
    const started: string[] = [];
    const releases: Array<() => void> = [];
    const pool = new WorkerPool<string>(
      1,
      10,
      (job) => {
        started.push(job);
        return new Promise<void>((r) => releases.push(r));
      },
      undefined,
      (job) => job[0], // the task: 'b' of 'b1', …
    );
    for (const job of ['b1', 'b2', 'b3', 'b4', 'b5', 'i1', 'b6', 'i2', 'c1']) pool.tryAdd(job);
    expect(pool.remove('b4')).toBe(true);
    const next = async (n: number) => {
      releases.shift()!();
      await vi.waitFor(() => expect(started).toHaveLength(n), { timeout: 10_000, interval: 1 });
    };
    await vi.waitFor(() => expect(started).toEqual(['b1']), { timeout: 10_000, interval: 1 });
    for (let n = 2; n <= 6; n++) await next(n);
    // One line: b2 … b6 before i1. Lines in turn: b, i, c, then b's and i's in turn, each first come first.
    expect(started).toEqual(['b1', 'b2', 'i1', 'c1', 'b3', 'i2']);
    expect(pool.drainQueue()).toEqual(['b5', 'b6']);
    releases.shift()!();
    await pool.whenIdle();
  });

  it('holds a job given an instant until then, counted as queued, and never starts it early', async () => {
    let now = 1_000;
    const started: Array<[number, number]> = [];
    const pool = new WorkerPool<number>(1, 0, (n) => {
      started.push([n, now]);
      return Promise.resolve();
    }, { now: () => now, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout) }); // the wall clock here; timers faked below
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(pool.tryAdd(1, 1_050)).toBe('scheduled');
      // Its place is spoken for: concurrency 1 + queueLimit 0 is one job in all.
      expect([pool.queued, pool.tryAdd(2, 1_060), pool.tryAdd(3)]).toEqual([1, false, 'started']);
      await new Promise((r) => setImmediate(r));
      expect(started).toEqual([[3, 1_000]]);
      now = 1_049; // the timer fires a millisecond early by the wall clock: not yet
      vi.advanceTimersByTime(50);
      await new Promise((r) => setImmediate(r));
      expect(started).toHaveLength(1);
      now = 1_050;
      vi.advanceTimersByTime(1);
      await new Promise((r) => setImmediate(r));
      expect(started).toEqual([[3, 1_000], [1, 1_050]]);
      expect(pool.queued).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lines jobs released at their instant up behind a busy worker, and lets one be removed or drained before it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }); // the instants move with the fake time; immediates are real
    try {
      const releases = new Map<number, () => void>();
      const started: number[] = [];
      const pool = new WorkerPool<number>(1, 3, (n) => {
        started.push(n);
        return new Promise<void>((r) => releases.set(n, r));
      });
      const at = Date.now() + 30;
      expect([pool.tryAdd(1), pool.tryAdd(2, at), pool.tryAdd(3, at), pool.tryAdd(4, at + 1_000)]).toEqual(['started', 'scheduled', 'scheduled', 'scheduled']);
      expect(pool.remove(3)).toBe(true);
      expect(pool.remove(3)).toBe(false);
      await vi.waitFor(() => expect(started).toEqual([1]), { timeout: 10_000, interval: 1 });
      await vi.advanceTimersByTimeAsync(60);
      expect([started, pool.queued]).toEqual([[1], 2]); // 2 is in line behind 1; 4 waits for its instant
      releases.get(1)!();
      await vi.waitFor(() => expect(started).toEqual([1, 2]), { timeout: 10_000, interval: 1 });
      expect(pool.drainQueue()).toEqual([4]);
      releases.get(2)!();
      await pool.whenIdle();
      expect(started).toEqual([1, 2]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is idle once the only job waiting for its instant is removed', async () => {
    const pool = new WorkerPool<number>(1, 0, () => Promise.resolve());
    pool.tryAdd(1, Date.now() + 60_000);
    const idle = pool.whenIdle();
    pool.remove(1);
    await idle;
  });
});

describe('CallbackSpool', () => {
  it('appends add/done lines, replays what is not done, tolerates a torn last line', async () => {
    const file = join(tempDir(), 'sub', 'spool.jsonl');
    const { spool, pending } = await CallbackSpool.open(file);
    expect(pending).toEqual([]);
    await spool.add(entry(1));
    await spool.add(entry(2));
    await spool.remove('1:1');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.op, l.id])).toEqual([['add', '1:1'], ['add', '2:1'], ['done', '1:1']]);
    await spool.close();
    // A crash mid-write leaves a torn line.
    writeFileSync(file, readFileSync(file, 'utf8') + '{"op":"add","id":"3:1","callb');
    const again = await CallbackSpool.open(file);
    expect(again.pending).toEqual([entry(2)]);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1); // compacted on open
    await again.spool.remove('2:1');
    await again.spool.close();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('compacts when dead lines outnumber live ones', async () => {
    const file = join(tempDir(), 'spool.jsonl');
    const { spool } = await CallbackSpool.open(file, { compactMinLines: 10 });
    for (let i = 1; i <= 20; i++) {
      await spool.add(entry(i));
      if (i > 1) await spool.remove(`${i}:1`);
    }
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(12);
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.op === 'add').map((l) => l.id)).toContain('1:1');
    await spool.close();
    expect((await CallbackSpool.open(file)).pending.map((e) => e.id)).toEqual(['1:1']);
  });

  it('is locked to one owner; with `numbered`, a second owner takes the next free file', async () => {
    const file = join(tempDir(), 'spool-app.jsonl');
    const a = await CallbackSpool.open(file, { numbered: true });
    await expect(CallbackSpool.open(file)).rejects.toThrow(/in use by process/);
    const b = await CallbackSpool.open(file, { numbered: true });
    expect(b.spool.file).toBe(file.replace('.jsonl', '.2.jsonl'));
    await a.spool.close();
    await b.spool.close();
    // A lock left by a dead process is taken over.
    writeFileSync(`${file}.lock`, '2147483646');
    const c = await CallbackSpool.open(file);
    expect(c.spool.file).toBe(file);
    await c.spool.close();
  });

  it('can be memory-only', async () => {
    const { spool, pending } = await CallbackSpool.open(false);
    expect(pending).toEqual([]);
    await spool.add(entry(1));
    expect(spool.has('1:1')).toBe(true);
    await spool.remove('1:1');
    expect(spool.size).toBe(0);
    expect(spool.file).toBeNull();
  });
});

describe('executor options', () => {
  const base: ExecutorOptions = { tenantId: 't', secret: 's', app: 'billing', engineUrls: ['http://e:1/'], handlers: [defineHandler('a', () => 1)] };

  it('applies the documented defaults', () => {
    const o = resolveExecutorOptions(base);
    expect(o).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      concurrency: 16,
      queueLimit: 1000,
      heartbeatIntervalMs: 3000,
      callbackRetry: { baseMs: 200, maxMs: 30_000 },
      shutdownGraceMs: 10_000,
      logTail: { maxLines: 200, maxBytes: 32_768 },
      engineUrls: ['http://e:1'],
      spoolFile: join(process.cwd(), '.baton', 'spool-billing.jsonl'),
      spoolFileIsDefault: true,
    });
    expect(EXECUTOR_DEFAULTS.concurrency).toBe(16);
  });

  it('names the bad option', () => {
    expect(() => resolveExecutorOptions({ ...base, tenantId: '' })).toThrow(/tenantId is required/);
    expect(() => resolveExecutorOptions({ ...base, engineUrls: [] })).toThrow(/engineUrls is required/);
    expect(() => resolveExecutorOptions({ ...base, engineUrls: ['ftp://x'] })).toThrow(/engineUrls\[0\]/);
    expect(() => resolveExecutorOptions({ ...base, concurrency: 0 })).toThrow(/concurrency must be an integer ≥ 1/);
    expect(() => resolveExecutorOptions({ ...base, port: 65_536 })).toThrow(expect.objectContaining({ option: 'port', reason: 'must be an integer ≥ 0 and ≤ 65535' }));
    // More alarms waiting than an engine takes from one callback would be lost.
    expect(() => resolveExecutorOptions({ ...base, maxAlarmsPerRun: MAX_ALARMS_PER_CALLBACK + 1 })).toThrow(/maxAlarmsPerRun must be an integer ≥ 0 and ≤ 100/);
    expect(resolveExecutorOptions({ ...base, maxAlarmsPerRun: MAX_ALARMS_PER_CALLBACK }).maxAlarmsPerRun).toBe(100);
    expect(() => resolveExecutorOptions({ ...base, app: 'a/b' })).toThrow(/app "a\/b"/);
    expect(() => resolveExecutorOptions({ ...base, handlers: [defineHandler('x', () => 1), defineHandler('x', () => 2)] })).toThrow(/two handlers are named "x"/);
  });
});
