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
   * by MAX_PARAMS_BYTES: when the results add up to more, the largest become
   * `{"truncated":true,"bytes":n}` one by one — children still learn which shard did what.
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

function shardResultsJson(shards: readonly ShardEnd[], maxBytes: number): string {
  const results = shards.map((s) => s.resultJson);
  const entry = (s: ShardEnd, result: string | null) =>
    `{"index":${s.index},"state":${JSON.stringify(s.state)},"executorId":${s.executorId ?? 'null'}${result === null ? '' : `,"result":${result}`}}`;
  const render = () => `{"shards":[${shards.map((s, i) => entry(s, results[i])).join(',')}]}`;
  let text = render();
  while (utf8ByteLength(text) > maxBytes) {
    let largest = -1;
    for (let i = 0; i < results.length; i++) {
      const r = results[i];
      if (r === null || r.startsWith('{"truncated":true')) continue;
      if (largest < 0 || r.length > (results[largest] as string).length) largest = i;
    }
    if (largest < 0) break;
    results[largest] = JSON.stringify({ truncated: true, bytes: utf8ByteLength(results[largest] as string) });
    text = render();
  }
  return text;
}
