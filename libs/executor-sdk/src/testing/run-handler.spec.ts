import { describe, expect, it } from 'vitest';
import { defineHandler, NonRetryableError, RunAbortedError } from '../index';
import { FakeClock, runHandler, startHandler } from './index';

const sendInvoices = defineHandler<{ month: string }>('send-invoices', async (ctx) => {
  const ids = [1, 2, 3];
  for (const [i] of ids.entries()) {
    ctx.signal.throwIfAborted();
    await ctx.sleep(1000);
    ctx.progress(Math.round((100 * (i + 1)) / ids.length));
    ctx.log.info('sent %d/%d for %s (attempt %d)', i + 1, ids.length, ctx.params.month, ctx.attempt);
  }
  ctx.alarm('INFO', `invoices of ${ctx.params.month} sent`, { sent: ids.length });
  return { sent: ids.length, runId: ctx.runId, task: ctx.taskName, tenant: ctx.tenantId };
});

describe('@baton/executor-sdk/testing', () => {
  it('runs a handler with the context asked for and captures what the callback would carry', async () => {
    const clock = new FakeClock(Date.UTC(2026, 9, 1));
    const run = startHandler(sendInvoices, { params: { month: '2026-10' }, attempt: 2, runId: 42, taskName: 'monthly', tenantId: 'acme', clock, progressIntervalMs: 0 });
    await clock.advance(3000);
    const r = await run.done;
    expect(r.outcome).toBe('SUCCEEDED');
    expect(r.result).toEqual({ sent: 3, runId: 42, task: 'monthly', tenant: 'acme' });
    expect(r.logs.map((l) => l.message)).toEqual(['sent 1/3 for 2026-10 (attempt 2)', 'sent 2/3 for 2026-10 (attempt 2)', 'sent 3/3 for 2026-10 (attempt 2)']);
    expect(r.logs.map((l) => l.at)).toEqual([1000, 2000, 3000].map((ms) => Date.UTC(2026, 9, 1) + ms)); // the fake clock's time
    expect(r.progress).toBe(100);
    expect(r.interim.map((cb) => cb.progress)).toContain(33);
    // The lines went out while it ran (the live tail), each once: none is repeated in the final callback.
    expect(r.interim.flatMap((cb) => cb.logs ?? []).map((l) => l.message)).toContain('sent 1/3 for 2026-10 (attempt 2)');
    expect((r.callback.logs ?? []).map((l) => l.message)).not.toContain('sent 1/3 for 2026-10 (attempt 2)');
    expect(r.alarms).toMatchObject([{ severity: 'INFO', message: 'invoices of 2026-10 sent', data: { sent: 3 } }]);
    expect(r.callback).toMatchObject({ runId: 42, attempt: 2, tenantId: 'acme', outcome: 'SUCCEEDED', startedAt: Date.UTC(2026, 9, 1), finishedAt: Date.UTC(2026, 9, 1) + 3000 });
    expect(r.retryable).toBe(true);
  });

  it('a thrown error → FAILED with its stack, retryable; a NonRetryableError (or any nonRetryable: true) → not retryable', async () => {
    const plain = await runHandler(defineHandler('boom', () => Promise.reject(new Error('card declined'))));
    expect(plain).toMatchObject({ outcome: 'FAILED', retryable: true, error: expect.stringContaining('Error: card declined') });
    expect(plain.callback.retryable).toBeUndefined();
    expect(plain.thrown).toBeInstanceOf(Error);
    const final = await runHandler(defineHandler('final', () => {
      throw new NonRetryableError('no customer 7');
    }));
    expect(final).toMatchObject({ outcome: 'FAILED', retryable: false, error: expect.stringContaining('NonRetryableError: no customer 7') });
    expect(final.callback).toMatchObject({ outcome: 'FAILED', retryable: false });
    expect((final.thrown as NonRetryableError).code).toBe('NON_RETRYABLE');
    // Another copy of the SDK, or an error class of the service's own: the property is what counts.
    const foreign = Object.assign(new Error('bad month'), { nonRetryable: true });
    expect(await runHandler(defineHandler('foreign', () => Promise.reject(foreign)))).toMatchObject({ outcome: 'FAILED', retryable: false });
  });

  it('a result that is not JSON or too big → FAILED, as the executor reports it', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await runHandler(defineHandler('cyclic', () => cyclic))).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/not JSON-serialisable/) });
    expect(await runHandler(defineHandler('big', () => 'x'.repeat(100)), { maxResultBytes: 50 })).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/maxResultBytes \(50\)/) });
  });

  it('an abort (handle or AbortController) reaches ctx.signal and ctx.sleep; the run ends ABORTED with the reason', async () => {
    let seen: unknown;
    const sleeper = defineHandler('sleeper', async (ctx) => {
      try {
        await ctx.sleep(60_000);
      } catch (err) {
        seen = err;
        throw err;
      }
    });
    const run = startHandler(sleeper);
    run.abort('TIMEOUT');
    expect(await run.done).toMatchObject({ outcome: 'ABORTED', abortReason: 'TIMEOUT', error: 'aborted by the engine: the run timed out' });
    expect(seen).toBeInstanceOf(RunAbortedError);
    const controller = new AbortController();
    const viaController = startHandler(sleeper, { signal: controller.signal });
    controller.abort('CANCELLED');
    expect(await viaController.done).toMatchObject({ outcome: 'ABORTED', abortReason: 'CANCELLED' });
  });

  it('the deadline aborts the run at the deadline, not a moment before', async () => {
    const clock = new FakeClock(0);
    const run = startHandler(defineHandler('slow', (ctx) => ctx.sleep(10_000)), { clock, deadline: 5_400 });
    let ended = false;
    void run.done.then(() => (ended = true));
    await clock.advance(5_399);
    expect(ended).toBe(false);
    await clock.advance(1);
    expect(await run.done).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE' });
  });

  it('the deadline aborts the run (DEADLINE); a handler that ignores the abort is ABORTED after abortGraceMs', async () => {
    const clock = new FakeClock(0);
    const deadline = startHandler(defineHandler('slow', (ctx) => ctx.sleep(10_000)), { clock, deadline: 5_000 });
    await clock.advance(5_000);
    expect(await deadline.done).toMatchObject({ outcome: 'ABORTED', abortReason: 'DEADLINE' });
    let release!: () => void;
    const stubborn = startHandler(defineHandler('stubborn', () => new Promise<void>((resolve) => (release = resolve))), { clock, abortGraceMs: 2_000 });
    stubborn.abort('CANCELLED');
    await clock.advance(2_000);
    expect(await stubborn.done).toMatchObject({ outcome: 'ABORTED', abortReason: 'CANCELLED', error: expect.stringMatching(/did not stop within 2000 ms/) });
    release();
  });

  it('refuses a run that could not be dispatched', () => {
    expect(() => startHandler(sendInvoices, { attempt: 0 })).toThrow(/attempt/);
    expect(() => startHandler(sendInvoices, { deadline: Date.now() - 1 })).toThrow(/deadline/);
  });

  it("hands a flow's child its parents' results", async () => {
    const report = defineHandler('report', (ctx) => ({ rows: (ctx.parentResults.extract as { rows: number }).rows, seen: Object.keys(ctx.parentResults) }));
    const r = await runHandler(report, { parentResults: { extract: { rows: 42 } } });
    expect(r.result).toEqual({ rows: 42, seen: ['extract'] });
    expect((await runHandler(defineHandler('day', (ctx) => ctx.flowParams), { flowParams: { day: '2026-11-24' } })).result).toEqual({ day: '2026-11-24' });
    expect((await runHandler(defineHandler('alone', (ctx) => ctx.parentResults), {})).result).toEqual({});
  });
});
