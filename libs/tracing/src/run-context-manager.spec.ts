import { createContextKey, ROOT_CONTEXT, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { RunContextManager } from './run-context-manager';

function spanContext(spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId, traceFlags: TraceFlags.SAMPLED });
}

const spanIdOf = (c: Context) => trace.getSpanContext(c)?.spanId;
const tick = () => new Promise((resolve) => setImmediate(resolve));
/** A promise the test resolves when it chooses. */
function opened(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('RunContextManager: the active context only while a span’s work is in flight', () => {
  const manager = new RunContextManager().enable();
  afterEach(() => manager.disable());

  it('keeps a span’s context across the awaits of the work it runs', async () => {
    const seen = await manager.with(spanContext('00f067aa0ba902b7'), async () => {
      await tick();
      return spanIdOf(manager.active());
    });
    expect(seen).toBe('00f067aa0ba902b7');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('turns the context off once the work settled: a continuation the work left behind runs without it', async () => {
    // The work leaves a continuation behind that runs only once the work has settled (the gate opens
    // after it): an event, not a guessed delay.
    const gate = opened();
    let later: Promise<string | undefined> | undefined;
    await manager.with(spanContext('00f067aa0ba902b7'), async () => {
      later = gate.promise.then(() => spanIdOf(manager.active()));
      await tick();
    });
    gate.open();
    expect(await later).toBeUndefined();
  });

  it('keeps it while another span’s work is still in flight', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const second = manager.with(spanContext('bbbbbbbbbbbbbbbb'), async () => {
      await held;
      await tick();
      return spanIdOf(manager.active());
    });
    await manager.with(spanContext('aaaaaaaaaaaaaaaa'), async () => tick());
    release();
    expect(await second).toBe('bbbbbbbbbbbbbbbb');
  });

  it('calls a function with a context without a span directly, none being entered (the exporter’s suppressTracing)', () => {
    const key = createContextKey('suppress');
    const inside = manager.with(ROOT_CONTEXT.setValue(key, true), (a: number, b: number) => [manager.active(), a + b] as const, undefined, 1, 2);
    expect(inside).toEqual([ROOT_CONTEXT, 3]);
  });

  it('enters any context while a span’s work is in flight (a nested detach is honoured)', async () => {
    const nested = await manager.with(spanContext('00f067aa0ba902b7'), async () => {
      await tick();
      return manager.with(ROOT_CONTEXT, () => manager.active());
    });
    expect(nested).toBe(ROOT_CONTEXT);
  });

  it('leaves the caller its errors, thrown or rejected, and turns the context off after them', async () => {
    expect(() =>
      manager.with(spanContext('00f067aa0ba902b7'), () => {
        throw new Error('sync');
      }),
    ).toThrow('sync');
    await expect(manager.with(spanContext('00f067aa0ba902b7'), async () => Promise.reject(new Error('async')))).rejects.toThrow('async');
    const gate = opened();
    let later: Promise<string | undefined> | undefined;
    manager.with(spanContext('00f067aa0ba902b7'), () => {
      later = gate.promise.then(() => spanIdOf(manager.active()));
    });
    gate.open();
    expect(await later).toBeUndefined();
  });
});
