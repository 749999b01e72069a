import { describe, expect, it } from 'vitest';
import type { DispatchRequest } from '../messages';
import { xxlCallbackOf, xxlCallbackParamsOf } from './callback-of';
import { runOfXxlLogId, xxlLogIdOf } from './log-id';
import { MAX_XXL_LOG_LINES, xxlLogLines } from './log-lines';
import { xxlBlockStrategyOf, xxlTriggerOf } from './trigger-param';

const T = Date.UTC(2026, 11, 1, 8, 0, 0);

const request = (overrides: Partial<DispatchRequest> = {}): DispatchRequest => ({
  runId: 4711,
  attempt: 2,
  tenantId: 'acme',
  taskId: 12,
  taskName: 'nightly-report',
  handler: 'demoJobHandler',
  params: 'day=2026-12-01',
  scheduledAt: T,
  deadline: T + 30_000,
  callbackUrls: [],
  ...overrides,
});

describe('XXL-JOB logId ⇄ run attempt', () => {
  it('round-trips every attempt a task can have, and large run ids exactly', () => {
    for (const [runId, attempt] of [[1, 1], [4711, 2], [4711, 100], [4711, 999], [8_999_999_999_999, 7]]) {
      expect(runOfXxlLogId(xxlLogIdOf(runId, attempt))).toEqual({ runId, attempt });
    }
    expect(xxlLogIdOf(4711, 2)).toBe(4_711_002);
  });

  it('refuses what Baton cannot have made: attempt 0, no run, not an integer, beyond exact numbers', () => {
    for (const logId of [4_711_000, 1000, 999, 0, -5, 1.5, '4711002', null, undefined, Number.MAX_SAFE_INTEGER + 2]) {
      expect(runOfXxlLogId(logId), String(logId)).toBeNull();
    }
  });
});

describe('XXL-JOB trigger of a run', () => {
  it('maps task, handler, params, timeout, logId, fire time; not a shard: broadcast 0 of 1', () => {
    expect(xxlTriggerOf(request(), 'SERIAL_EXECUTION', T)).toEqual({
      jobId: 12,
      executorHandler: 'demoJobHandler',
      executorParams: 'day=2026-12-01',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      executorTimeout: 31,
      logId: 4_711_002,
      logDateTime: T,
      glueType: 'BEAN',
      glueSource: '',
      glueUpdatetime: 0,
      broadcastIndex: 0,
      broadcastTotal: 1,
    });
  });

  it('a shard sends its index and total; the timeout counts from the sending instant, rounded up, plus one second', () => {
    const trigger = xxlTriggerOf(request({ shardIndex: 2, shardTotal: 4 }), 'COVER_EARLY', T + 29_001);
    expect(trigger).toMatchObject({ broadcastIndex: 2, broadcastTotal: 4, executorTimeout: 2, executorBlockStrategy: 'COVER_EARLY' });
    expect(xxlTriggerOf(request(), 'SERIAL_EXECUTION', T + 40_000).executorTimeout).toBe(1);
  });

  it('params: a string as it is, nothing as "", other JSON as its text', () => {
    expect(xxlTriggerOf(request({ params: null }), 'SERIAL_EXECUTION', T).executorParams).toBe('');
    // A task's default params, {} (an XXL-JOB job with an empty executor_param, imported): "" as XXL-JOB's admin passes it.
    expect(xxlTriggerOf(request({ params: {} }), 'SERIAL_EXECUTION', T).executorParams).toBe('');
    expect(xxlTriggerOf(request({ params: '' }), 'SERIAL_EXECUTION', T).executorParams).toBe('');
    expect(xxlTriggerOf(request({ params: [] }), 'SERIAL_EXECUTION', T).executorParams).toBe('[]');
    expect(xxlTriggerOf(request({ params: { day: '2026-12-01', n: 3 } }), 'SERIAL_EXECUTION', T).executorParams).toBe('{"day":"2026-12-01","n":3}');
    expect(xxlTriggerOf(request({ params: 42 }), 'SERIAL_EXECUTION', T).executorParams).toBe('42');
  });

  it('block strategy of each concurrency policy', () => {
    expect(xxlBlockStrategyOf('ALLOW')).toBe('SERIAL_EXECUTION');
    expect(xxlBlockStrategyOf('FORBID')).toBe('DISCARD_LATER');
    expect(xxlBlockStrategyOf('REPLACE')).toBe('COVER_EARLY');
  });
});

describe('XXL-JOB callback → the run’s final callback', () => {
  const logs = [{ at: T, level: 'info' as const, message: 'step 1' }];

  it('200 → SUCCEEDED, handleMsg the result; the pulled log lines ride along; no end time (XXL-JOB reports none: the engine stamps its own)', () => {
    expect(xxlCallbackOf({ logId: 4_711_002, logDateTim: T, handleCode: 200, handleMsg: 'done' }, 'acme', logs)).toEqual({
      runId: 4711,
      attempt: 2,
      tenantId: 'acme',
      logs,
      outcome: 'SUCCEEDED',
      result: 'done',
    });
    expect(xxlCallbackOf({ logId: 4_711_002, handleCode: 200, handleMsg: null }, 'acme', [])).toEqual({ runId: 4711, attempt: 2, tenantId: 'acme', outcome: 'SUCCEEDED', result: null });
  });

  it('502 → ABORTED on TIMEOUT (the run ends TIMED_OUT); 500 and any other code → FAILED with handleMsg', () => {
    expect(xxlCallbackOf({ logId: 4_711_002, handleCode: 502, handleMsg: 'job execute timeout ' }, 'acme', [])).toMatchObject({ outcome: 'ABORTED', abortReason: 'TIMEOUT', error: 'job execute timeout ' });
    expect(xxlCallbackOf({ logId: 4_711_002, handleCode: 502 }, 'acme', [])).toMatchObject({ outcome: 'ABORTED', abortReason: 'TIMEOUT', error: expect.stringMatching(/timeout/) });
    expect(xxlCallbackOf({ logId: 4_711_002, handleCode: 500, handleMsg: 'java.lang.RuntimeException: boom' }, 'acme', [])).toMatchObject({ outcome: 'FAILED', error: 'java.lang.RuntimeException: boom' });
    expect(xxlCallbackOf({ logId: 4_711_002, handleCode: 503 }, 'acme', [])).toMatchObject({ outcome: 'FAILED', error: 'XXL-JOB executor: handleCode 503' });
  });

  it('not a callback of a run Baton sent: null', () => {
    for (const param of [null, 'x', [], { logId: 4_711_000, handleCode: 200 }, { logId: 4_711_002 }, { logId: 4_711_002, handleCode: '200' }, { logId: 4_711_002, handleCode: 200.5 }]) {
      expect(xxlCallbackOf(param, 'acme', []), JSON.stringify(param)).toBeNull();
    }
  });

  it('the body: an array (xxl-job-core 2.3 – 3.x) or {callbackList} (its newest code); anything else is refused', () => {
    const one = { logId: 4_711_002, handleCode: 200 };
    expect(xxlCallbackParamsOf([one])).toEqual([one]);
    expect(xxlCallbackParamsOf({ callbackList: [one] })).toEqual([one]);
    for (const body of [null, one, 'x', { callbackList: one }]) expect(xxlCallbackParamsOf(body)).toBeNull();
  });
});

describe('XXL-JOB log → run log lines', () => {
  it('splits on newlines and xxl-job-core’s <br> marks, drops empty lines, keeps the last lines', () => {
    const result = { fromLineNum: 1, toLineNum: 3, logContent: '2026-12-01 a\r\n<br>----------- end -----------<br>\n\n2026-12-01 b  ', isEnd: false };
    expect(xxlLogLines(result, T)).toEqual([
      { at: T, level: 'info', message: '2026-12-01 a' },
      { at: T, level: 'info', message: '----------- end -----------' },
      { at: T, level: 'info', message: '2026-12-01 b' },
    ]);
    const many = { ...result, logContent: Array.from({ length: MAX_XXL_LOG_LINES + 5 }, (_, i) => `line ${i}`).join('\n') };
    const lines = xxlLogLines(many, T);
    expect(lines).toHaveLength(MAX_XXL_LOG_LINES);
    expect(lines[0].message).toBe('line 5');
  });

  it('no log: no lines', () => {
    expect(xxlLogLines(null, T)).toEqual([]);
    expect(xxlLogLines({ fromLineNum: 1, toLineNum: 0, logContent: null, isEnd: true }, T)).toEqual([]);
  });
});
