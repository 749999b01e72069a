import { MAX_START_IN_MS, type AbortRequest, type AbortRequestReason, type DispatchRequest } from '@baton/protocol';

export type Checked<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

const ABORT_REASONS: readonly AbortRequestReason[] = ['TIMEOUT', 'CANCELLED', 'REPLACED'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bad<T>(field: string, message: string): Checked<T> {
  return { ok: false, field, message: `${field}: ${message}` };
}

function intField(body: Record<string, unknown>, field: string, min: number): string | null {
  const v = body[field];
  if (v === undefined) return 'is required';
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) return `must be an integer (got ${JSON.stringify(v)})`;
  if (v < min) return `must be ≥ ${min} (got ${v})`;
  return null;
}

/** Checks a DispatchRequest's shape; names the first wrong field. */
export function checkDispatch(body: unknown): Checked<DispatchRequest> {
  if (!isObject(body)) return bad('body', 'must be a JSON object');
  for (const [field, min] of [['runId', 1], ['attempt', 1], ['taskId', 0], ['scheduledAt', 0], ['deadline', 0]] as const) {
    const problem = intField(body, field, min);
    if (problem) return bad(field, problem);
  }
  for (const field of ['tenantId', 'taskName', 'handler'] as const) {
    const v = body[field];
    if (v === undefined) return bad(field, 'is required');
    if (typeof v !== 'string') return bad(field, 'must be a string');
    if (field !== 'taskName' && !v) return bad(field, 'must not be empty');
  }
  if (!('params' in body) || body.params === undefined) return bad('params', 'is required (null when the task has none)');
  const urls = body.callbackUrls;
  if (urls === undefined) return bad('callbackUrls', 'is required (an array of engine base URLs, may be empty)');
  if (!Array.isArray(urls)) return bad('callbackUrls', 'must be an array of URLs');
  for (let i = 0; i < urls.length; i++) {
    if (!isHttpUrl(urls[i])) return bad(`callbackUrls[${i}]`, `must be an http(s) URL (got ${JSON.stringify(urls[i])})`);
  }
  if (body.parentResults !== undefined && !isObject(body.parentResults)) return bad('parentResults', 'must be an object of results by parent task name');
  if (body.shardIndex !== undefined || body.shardTotal !== undefined) {
    // A shard is told both; one without the other is a malformed request, not a default.
    const total = intField(body, 'shardTotal', 1);
    if (total) return bad('shardTotal', total);
    const index = intField(body, 'shardIndex', 0);
    if (index) return bad('shardIndex', index);
    if ((body.shardIndex as number) >= (body.shardTotal as number)) return bad('shardIndex', `must be below shardTotal (${body.shardTotal})`);
  }
  if (body.deadlineInMs !== undefined) {
    const v = body.deadlineInMs;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return bad('deadlineInMs', `must be a finite number ≥ 0 (got ${typeof v === 'number' ? v : JSON.stringify(v)})`);
  }
  if (body.startInMs !== undefined) {
    const problem = intField(body, 'startInMs', 0);
    if (problem) return bad('startInMs', problem);
    if ((body.startInMs as number) > MAX_START_IN_MS) return bad('startInMs', `must be ≤ ${MAX_START_IN_MS} (got ${body.startInMs})`);
  }
  return { ok: true, value: body as unknown as DispatchRequest };
}

/** Checks an AbortRequest against the run id of its path. */
export function checkAbort(body: unknown, pathRunId: number): Checked<AbortRequest> {
  if (!isObject(body)) return bad('body', 'must be a JSON object');
  for (const field of ['runId', 'attempt'] as const) {
    const problem = intField(body, field, 1);
    if (problem) return bad(field, problem);
  }
  if (body.runId !== pathRunId) return bad('runId', `must match the run id of the path (${pathRunId})`);
  if (!ABORT_REASONS.includes(body.reason as AbortRequestReason)) return bad('reason', `must be one of ${ABORT_REASONS.join(', ')}`);
  return { ok: true, value: body as unknown as AbortRequest };
}

/** Callback URLs found good lately: the engines send the same few with every run. */
const goodUrls = new Set<string>();
const GOOD_URLS_KEPT = 64;

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  if (goodUrls.has(v)) return true;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (goodUrls.size >= GOOD_URLS_KEPT) goodUrls.clear();
  goodUrls.add(v);
  return true;
}
