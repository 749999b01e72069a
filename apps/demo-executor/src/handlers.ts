import { appendFileSync } from 'node:fs';
import { defineHandler, NonRetryableError, type AnyTaskHandler, type HandlerContext } from '@baton/executor-sdk';

export interface DemoHandlerOptions {
  /**
   * Append one JSON line per handler invocation to this file: `{ runId, attempt, handler, pid,
   * at }` (benchmarks and cluster tests count invocations per run from these records).
   * Default: none (env `BATON_DEMO_RECORD_FILE` in main.ts).
   */
  recordFile?: string;
}

/** One line of the record file. */
export interface DemoInvocationRecord {
  runId: number;
  attempt: number;
  handler: string;
  pid: number;
  /** When the handler was invoked (epoch ms). */
  at: number;
}

type Params = Record<string, unknown> | null;

function num(params: Params, key: string, fallback: number): number {
  const v = params && typeof params === 'object' ? params[key] : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
}

/** `noop`: returns at once. */
const noop = defineHandler<Params>('noop', () => ({ ok: true }));

/** `sleep`: waits `params.ms` (default 1000), abortable. Its params schema shows in the task editor and is checked on save. */
const sleep = defineHandler<Params>(
  'sleep',
  async (ctx) => {
    const ms = num(ctx.params, 'ms', 1000);
    await ctx.sleep(ms);
    return { sleptMs: ms };
  },
  {
    paramsSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 3_600_000, description: 'How long to sleep, in milliseconds (default 1000)' } },
      additionalProperties: false,
    },
  },
);

/**
 * `fail-n-times`: fails while `ctx.attempt` ≤ `params.failures` (default 1), then succeeds.
 * With `params.nonRetryable: true` (default false) it fails with a NonRetryableError: no retry.
 */
const failNTimes = defineHandler<Params>('fail-n-times', (ctx) => {
  const failures = num(ctx.params, 'failures', 1);
  const message = `planned failure on attempt ${ctx.attempt} (fails ${failures} time(s))`;
  if (ctx.attempt <= failures && ctx.params?.nonRetryable === true) throw new NonRetryableError(message);
  if (ctx.attempt <= failures) throw new Error(message);
  return { succeededOnAttempt: ctx.attempt };
});

/** `long-running`: `params.ms` (default 10 000) in ten steps, progress every 10 %, abortable. */
const longRunning = defineHandler<Params>('long-running', async (ctx) => {
  const ms = num(ctx.params, 'ms', 10_000);
  for (let step = 1; step <= 10; step++) {
    await ctx.sleep(ms / 10);
    ctx.progress(step * 10);
    ctx.log.info('step %d/10 done', step);
  }
  return { ms };
});

/** `cpu-burn`: `params.ms` (default 1000) of busy loop in slices of `params.sliceMs` (default 10), yielding between slices; abortable. */
const cpuBurn = defineHandler<Params>('cpu-burn', async (ctx) => {
  const ms = num(ctx.params, 'ms', 1000);
  const sliceMs = Math.max(1, num(ctx.params, 'sliceMs', 10));
  const started = Date.now();
  let slices = 0;
  let x = 0;
  while (Date.now() - started < ms) {
    ctx.signal.throwIfAborted();
    const sliceEnd = Math.min(started + ms, Date.now() + sliceMs);
    while (Date.now() < sliceEnd) x = (x * 31 + 7) % 1_000_003;
    slices++;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { burnedMs: Date.now() - started, slices, checksum: x };
});

/**
 * `alarm`: raises `params.count` (default 1) business alarms with `ctx.alarm(params.severity ??
 * 'WARNING', params.message ?? 'demo alarm', params.data)` — numbered " #i" when more than one —
 * then waits `params.ms` (default 0) and succeeds.
 */
const alarm = defineHandler<Params>('alarm', async (ctx) => {
  const p = ctx.params && typeof ctx.params === 'object' ? ctx.params : {};
  const severity = p.severity === 'INFO' || p.severity === 'CRITICAL' ? p.severity : 'WARNING';
  const message = typeof p.message === 'string' ? p.message : 'demo alarm';
  const count = Math.max(1, Math.floor(num(ctx.params, 'count', 1)));
  for (let i = 1; i <= count; i++) ctx.alarm(severity, count > 1 ? `${message} #${i}` : message, (p.data ?? undefined) as never);
  const ms = num(ctx.params, 'ms', 0);
  if (ms > 0) await ctx.sleep(ms);
  return { alarms: count };
});

/** `record`: does nothing but be recorded (every handler is recorded when a record file is set). */
const record = defineHandler<Params>('record', (ctx) => ({ recorded: true, runId: ctx.runId, attempt: ctx.attempt }));

/**
 * `shard-part`: one shard's part of a BROADCAST or SHARDED run — the items 0 … `params.items` − 1
 * (default 100) with `item % ctx.shardTotal === ctx.shardIndex`, after `params.ms` (default 0,
 * abortable). Shard `params.failShard` (default none) fails while `ctx.attempt` ≤
 * `params.failures` (default 1): a retry then re-runs that shard alone.
 */
const shardPart = defineHandler<Params>(
  'shard-part',
  async (ctx) => {
    const items = Math.floor(num(ctx.params, 'items', 100));
    const ms = num(ctx.params, 'ms', 0);
    if (ms > 0) await ctx.sleep(ms);
    if (ctx.params?.failShard === ctx.shardIndex && ctx.attempt <= num(ctx.params, 'failures', 1)) {
      throw new Error(`planned failure of shard ${ctx.shardIndex} on attempt ${ctx.attempt}`);
    }
    let mine = 0;
    for (let item = ctx.shardIndex; item < items; item += ctx.shardTotal) mine++;
    ctx.log.info('shard %d of %d: %d of %d items', ctx.shardIndex, ctx.shardTotal, mine, items);
    return { shardIndex: ctx.shardIndex, shardTotal: ctx.shardTotal, items: mine };
  },
  {
    paramsSchema: {
      type: 'object',
      properties: {
        items: { type: 'integer', minimum: 0, description: 'Items to share out (default 100)' },
        ms: { type: 'integer', minimum: 0, description: 'Work time per shard, in milliseconds (default 0)' },
        failShard: { type: 'integer', minimum: 0, description: 'This shard fails…' },
        failures: { type: 'integer', minimum: 0, description: '…while its attempt is at most this (default 1)' },
      },
      additionalProperties: false,
    },
  },
);

/** The demo handlers, the same in the standalone demo executor and in the embedded app. */
export function buildDemoHandlers(options: DemoHandlerOptions = {}): AnyTaskHandler[] {
  const handlers: AnyTaskHandler[] = [noop, sleep, failNTimes, longRunning, cpuBurn, alarm, record, shardPart];
  const file = options.recordFile;
  if (!file) return handlers;
  return handlers.map((h) =>
    defineHandler<Params>(h.name, (ctx: HandlerContext<Params>) => {
      const line: DemoInvocationRecord = { runId: ctx.runId, attempt: ctx.attempt, handler: ctx.handler, pid: process.pid, at: Date.now() };
      appendFileSync(file, JSON.stringify(line) + '\n');
      return h.run(ctx);
    }, { paramsSchema: h.paramsSchema }),
  );
}

/** The names of the demo handlers. */
export const DEMO_HANDLER_NAMES = ['noop', 'sleep', 'fail-n-times', 'long-running', 'cpu-burn', 'alarm', 'record', 'shard-part'] as const;
