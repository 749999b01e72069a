import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CATASTROPHIC_INPUT, CATASTROPHIC_PATTERN, nestedAnyOf } from '../../../../test/support/hostile-schemas';
import { DEADLINES, ParamsCheckThread, ParamsCheckWorkers, type Deadlines } from './params-check-thread';

const RESIZE = JSON.stringify({ type: 'object', required: ['width'], properties: { width: { type: 'integer', minimum: 1 } } });
/** 2^22 paths: about 6 s and 300 MB of errors unbounded. */
const HOSTILE = JSON.stringify(nestedAnyOf(22));
/**
 * The check deadline the product runs with (what these tests are about: hostile checks run ~6 s
 * unbounded); compiles and requests given room, since a loaded machine compiles HOSTILE in a fresh
 * worker (from the TypeScript sources) slower than the product's 1 s, and that is not checked here.
 */
const CHECK_DEADLINE_ONLY: Deadlines = { ...DEADLINES, compileMs: 30_000, requestMs: 30_000 };
const TOO_COSTLY = `the handler's params schema is too costly to check: checking these params took longer than ${DEADLINES.checkMs} ms`;

describe('ParamsCheckThread', () => {
  const threads: ParamsCheckThread[] = [];
  const started = async (deadlines?: Deadlines) => {
    const thread = new ParamsCheckThread(deadlines ?? CHECK_DEADLINE_ONLY);
    threads.push(thread);
    // The worker starts with the first request (from the TypeScript sources here, ~0.5 s; its start is never timed): not what is timed below.
    expect(await thread.run([{ schema: RESIZE, params: { width: 1 } }])).toEqual([{ errors: [] }]);
    return thread;
  };
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((t) => t.close()));
  });

  it('checks params off the event loop, with the verdicts in the order given', async () => {
    const thread = await started();
    const mixed = JSON.stringify({ type: 'object', properties: { s: { type: 'string', pattern: '(a)\\1' } } });
    expect(await thread.run([{ schema: RESIZE, params: { width: 0 } }, { schema: mixed, params: {} }, { schema: RESIZE }, { schema: RESIZE, params: { width: 3 } }])).toEqual([
      { errors: [{ field: 'params.width', reason: 'must be >= 1' }] },
      { unusable: expect.stringContaining('pattern "(a)\\\\1" is not supported') },
      { errors: [] },
      { errors: [] },
    ]);
  });

  it('answers the catastrophic-backtracking pattern at once, with the right verdict', async () => {
    const thread = await started();
    const schema = JSON.stringify({ type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC_PATTERN } } });
    await thread.run([{ schema }]);
    // Not refused for overrunning its deadline: the verdict itself (how fast is bench/'s to measure).
    expect(await thread.run([{ schema, params: { s: CATASTROPHIC_INPUT } }, { schema, params: { s: 'aaaa' } }])).toEqual([
      { errors: [{ field: 'params.s', reason: `must match pattern "${CATASTROPHIC_PATTERN}"` }] },
      { errors: [] },
    ]);
  });

  it('refuses a check that overruns its deadline, without blocking the event loop; the next request gets a fresh worker', async () => {
    const thread = await started();
    await thread.run([{ schema: HOSTILE }]);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const verdicts = await thread.run([{ schema: RESIZE, params: { width: 0 } }, { schema: HOSTILE, params: { s: {} } }, { schema: RESIZE, params: { width: 0 } }]);
    clearInterval(ticker);
    expect(verdicts).toEqual([{ errors: [] }, { refused: TOO_COSTLY }, { errors: [] }]);
    // A 5 ms timer kept firing meanwhile (it could not at all while the check ran on this thread).
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(await thread.run([{ schema: RESIZE, params: { width: 0 } }])).toEqual([{ errors: [{ field: 'params.width', reason: 'must be >= 1' }] }]);
  });

  it('keeps other requests waiting no longer than one deadline behind a hostile one', async () => {
    const thread = await started();
    await thread.run([{ schema: HOSTILE }]);
    const hostile = thread.run([{ schema: HOSTILE, params: { s: {} } }]);
    const other = thread.run([{ schema: RESIZE, params: { width: 2 } }]);
    expect(await hostile).toEqual([{ refused: TOO_COSTLY }]);
    // Answered by the fresh worker once the hostile check is cut at its deadline (~6 s unbounded: past the test's timeout).
    expect(await other).toEqual([{ errors: [] }]);
  });

  it("refuses a schema whose compile overruns, and answers it at once afterwards without recompiling", async () => {
    const thread = new ParamsCheckThread({ ...DEADLINES, compileMs: 1 });
    threads.push(thread);
    const big = JSON.stringify({ type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: 'object', properties: { a: { type: 'string' } } }])) });
    const refused = { refused: "the handler's params schema is too costly to check: compiling it took longer than 1 ms" };
    expect(await thread.run([{ schema: big, params: {} }])).toEqual([refused]);
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      expect(await thread.run([{ schema: big }, { schema: big, params: { p1: 1 } }])).toEqual([refused, refused]);
      expect(posted).not.toHaveBeenCalled(); // answered from what the thread remembers: no worker compiled it again
    } finally {
      posted.mockRestore();
    }
  });

  it("refuses the rest of a request past its budget, naming the task where it ran out", async () => {
    const thread = await started({ checkMs: 5_000, compileMs: 5_000, requestMs: 1 });
    // Its check takes tens of ms of CPU: well past the 1 ms budget, though the thread's CPU time is
    // read at the scheduler's tick (a few ms; thread-cpu.ts).
    const slow = JSON.stringify(nestedAnyOf(15));
    await thread.run([{ schema: slow }]);
    expect(await thread.run([{ schema: slow, params: { s: {} } }, { schema: RESIZE, params: { width: 0 } }, { schema: RESIZE, params: { width: 0 } }])).toEqual([
      { errors: expect.any(Array) },
      { refused: "the handler's params schema is too costly to check: checking this request's params took longer than 1 ms in all; save fewer tasks at a time" },
      { errors: [] },
    ]);
  });

  it('fails what is queued when closed, and refuses new work', async () => {
    const thread = await started();
    await thread.run([{ schema: HOSTILE }]);
    const pending = expect(thread.run([{ schema: HOSTILE, params: { s: {} } }])).rejects.toThrow('the console is closing');
    const queued = expect(thread.run([{ schema: RESIZE, params: { width: 1 } }])).rejects.toThrow('the console is closing');
    await thread.close();
    await pending;
    await queued;
    await expect(thread.run([{ schema: RESIZE, params: {} }])).rejects.toThrow('the console is closing');
  });
});

describe('ParamsCheckWorkers', () => {
  it("sends the checks of a schema that overran, and of its tenant, to a worker of their own: other tenants' checks no longer wait behind them", async () => {
    const workers = new ParamsCheckWorkers(CHECK_DEADLINE_ONLY);
    try {
      expect(await workers.run([{ schema: HOSTILE, params: { s: {} } }, { schema: RESIZE, params: { width: 0 } }], 'mallory')).toEqual([{ refused: TOO_COSTLY }, { errors: [] }]);
      // The shared worker again, after its restart; mallory's checks now go to the other.
      expect(await workers.run([{ schema: RESIZE, params: { width: 1 } }], 'alice')).toEqual([{ errors: [] }]);
      // A new hostile schema (an executor may declare one per save): mallory's, so quarantined all the same.
      let hostileDone = false;
      const hostile = workers.run([{ schema: JSON.stringify({ ...JSON.parse(HOSTILE), $comment: 'rotated' }), params: { s: {} } }], 'mallory').finally(() => (hostileDone = true));
      const other = await workers.run([{ schema: RESIZE, params: { width: 0 } }], 'alice');
      expect(hostileDone, "alice's check answered while mallory's still ran").toBe(false);
      expect(other).toEqual([{ errors: [{ field: 'params.width', reason: 'must be >= 1' }] }]);
      expect(await hostile).toEqual([{ refused: TOO_COSTLY }]);
    } finally {
      await workers.close();
    }
  });

  it('flags a schema unusable after its second overrun: any params against it refused at once, until it has been quiet for 10 minutes', async () => {
    let now = 0;
    const workers = new ParamsCheckWorkers(CHECK_DEADLINE_ONLY, () => now);
    try {
      for (let i = 0; i < 2; i++) expect(await workers.run([{ schema: HOSTILE, params: { s: {} } }], 'mallory')).toEqual([{ refused: TOO_COSTLY }]);
      const posted = vi.spyOn(Worker.prototype, 'postMessage');
      const [again] = await workers.run([{ schema: HOSTILE, params: { s: { other: 1 } } }], 'mallory');
      const checksRun = posted.mock.calls.length;
      posted.mockRestore();
      expect(checksRun, 'refused without running: no worker was asked').toBe(0);
      expect(again).toEqual({ refused: expect.stringContaining(`its checks overran the ${DEADLINES.checkMs} ms deadline 2 times`) });
      expect(await workers.run([{ schema: RESIZE, params: { width: 0 } }, { schema: HOSTILE, params: { s: {} } }], 'alice')).toEqual([
        { errors: [{ field: 'params.width', reason: 'must be >= 1' }] },
        { refused: expect.stringMatching(/^the handler's params schema is too costly to check: its checks overran/) },
      ]);
      now += 10 * 60_000;
      expect(await workers.run([{ schema: HOSTILE, params: { s: {} } }], 'mallory')).toEqual([{ refused: TOO_COSTLY }]); // checked again (and overran again)
    } finally {
      await workers.close();
    }
  });
});
