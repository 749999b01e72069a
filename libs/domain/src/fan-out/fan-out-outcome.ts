import { MAX_PARAMS_BYTES, type FanOutFailWhen, type RunState } from '../types';
import { utf8ByteLength } from '../task/json-params';

/** A shard as its fan-out run sees it once it has ended. */
export interface ShardEnd {
  index: number;
  /** A terminal state. */
  state: RunState;
  executorId: number | null;
  error: string | null;
  /** The shard's result, JSON text; null when it has none. */
  resultJson: string | null;
}

/** How a fan-out run ends. */
export interface FanOutOutcome {
  state: 'SUCCEEDED' | 'FAILED';
  /** Null when it succeeded; else which shards did not succeed and why (first line of each). */
  error: string | null;
  /**
   * `{"shards":[{"index":0,"state":"SUCCEEDED","executorId":7,"result":…},…]}` by index, bounded
   * by MAX_PARAMS_BYTES: the largest results become `{"truncated":true,"bytes":n}`, and past that
   * the last entries are left out (successful ones first) and counted: `"omitted":n`.
   */
  resultJson: string;
}

/** Shards named one by one in a fan-out run's error; the rest are counted. */
const NAMED_FAILURES = 5;

/**
 * The end of a fan-out run whose shards have all ended (each after its own retries), per the
 * task's `failWhen`: ANY_SHARD_FAILS — one shard not SUCCEEDED (failed, timed out, cancelled)
 * fails it; ALL_SHARDS_FAIL — it fails only when no shard succeeded. No shard at all (their rows
 * purged before the run could end) is a failure: there is nothing to show it succeeded.
 */
export function fanOutOutcome(failWhen: FanOutFailWhen, shards: readonly ShardEnd[], maxBytes = MAX_PARAMS_BYTES): FanOutOutcome {
  const ordered = [...shards].sort((a, b) => a.index - b.index);
  const failed = ordered.filter((s) => s.state !== 'SUCCEEDED');
  const fails = ordered.length === 0 || (failWhen === 'ANY_SHARD_FAILS' ? failed.length > 0 : failed.length === ordered.length);
  const resultJson = shardResultsJson(ordered, maxBytes);
  if (!fails) return { state: 'SUCCEEDED', error: null, resultJson };
  if (ordered.length === 0) return { state: 'FAILED', error: 'no shard of this run is left to report on', resultJson };
  const named = failed.slice(0, NAMED_FAILURES).map((s) => `shard ${s.index} ${s.state}${s.error ? `: ${firstLine(s.error)}` : ''}`);
  const more = failed.length > NAMED_FAILURES ? `; and ${failed.length - NAMED_FAILURES} more` : '';
  const rule = failWhen === 'ANY_SHARD_FAILS' ? '' : ' (none succeeded)';
  return { state: 'FAILED', error: `${failed.length} of ${ordered.length} shards did not succeed${rule} — ${named.join('; ')}${more}`, resultJson };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0];
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * The shards' results within `maxBytes`: first the largest results become
 * `{"truncated":true,"bytes":n}`, then — a thousand shards' entries alone outgrow 64 KB — entries
 * are left out from the last index down, successful ones before the others (a failure is what a
 * reader looks for), counted in `"omitted"`. Sizes are kept per entry, so this is n log n, not a
 * re-render per step.
 */
function shardResultsJson(shards: readonly ShardEnd[], maxBytes: number): string {
  const entry = (s: ShardEnd, result: string | null) =>
    `{"index":${s.index},"state":${JSON.stringify(s.state)},"executorId":${s.executorId ?? 'null'}${result === null ? '' : `,"result":${result}`}}`;
  const items = shards.map((s) => ({ s, result: s.resultJson, kept: true, bytes: utf8ByteLength(entry(s, s.resultJson)) }));
  // `{"shards":[` + `]` + `}`, and room for `,"omitted":n`.
  const frame = 14 + 24;
  let kept = items.length;
  let total = frame + items.reduce((n, i) => n + i.bytes, 0) + Math.max(0, kept - 1);
  const byResultSize = items.filter((i) => i.result !== null).sort((a, b) => (b.result as string).length - (a.result as string).length);
  for (const item of byResultSize) {
    if (total <= maxBytes) break;
    item.result = JSON.stringify({ truncated: true, bytes: utf8ByteLength(item.s.resultJson as string) });
    const bytes = utf8ByteLength(entry(item.s, item.result));
    total += bytes - item.bytes;
    item.bytes = bytes;
  }
  const dropOrder = [...items].reverse().sort((a, b) => Number(b.s.state === 'SUCCEEDED') - Number(a.s.state === 'SUCCEEDED'));
  for (const item of dropOrder) {
    if (total <= maxBytes) break;
    item.kept = false;
    kept--;
    total -= item.bytes + (kept > 0 ? 1 : 0);
  }
  const omitted = items.length - kept;
  return `{"shards":[${items.filter((i) => i.kept).map((i) => entry(i.s, i.result)).join(',')}]${omitted ? `,"omitted":${omitted}` : ''}}`;
}
