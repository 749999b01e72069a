import type { LogLine, RunCallback } from '../messages';
import { runOfXxlLogId } from './log-id';
import { XXL_JOB_HANDLE_TIMEOUT, XXL_JOB_SUCCESS, type XxlHandleCallbackParam } from './messages';

/**
 * The final RunCallback an XXL-JOB callback stands for, to go the engine's ordinary callback
 * path: handleCode 200 → SUCCEEDED (handleMsg, if any, the result); 502 → ABORTED on TIMEOUT
 * (the run ends TIMED_OUT); anything else → FAILED with handleMsg as the error (XXL-JOB's kill,
 * discard and exception all say 500). No finishedAt: XXL-JOB reports no end time, so the engine
 * stamps the end with its own clock on receipt (and records it as its own). Null when `param` is not a callback of a run Baton sent
 * (malformed, or a logId it did not make).
 */
export function xxlCallbackOf(param: unknown, tenantId: string, logs: LogLine[]): RunCallback | null {
  if (param === null || typeof param !== 'object') return null;
  const { logId, handleCode, handleMsg } = param as Partial<XxlHandleCallbackParam>;
  const run = runOfXxlLogId(logId);
  if (!run || typeof handleCode !== 'number' || !Number.isInteger(handleCode)) return null;
  const message = typeof handleMsg === 'string' && handleMsg.length > 0 ? handleMsg : null;
  const common = { ...run, tenantId, ...(logs.length > 0 ? { logs } : {}) };
  if (handleCode === XXL_JOB_SUCCESS) return { ...common, outcome: 'SUCCEEDED', result: message };
  if (handleCode === XXL_JOB_HANDLE_TIMEOUT) return { ...common, outcome: 'ABORTED', abortReason: 'TIMEOUT', error: message ?? 'XXL-JOB executor: job execute timeout' };
  return { ...common, outcome: 'FAILED', error: message ?? `XXL-JOB executor: handleCode ${handleCode}` };
}

/** The callback params of a body: xxl-job-core sends an array; its newest code a `{callbackList}` object. */
export function xxlCallbackParamsOf(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  const list = body && typeof body === 'object' ? (body as { callbackList?: unknown }).callbackList : undefined;
  return Array.isArray(list) ? list : null;
}
