import { utf8ByteLength } from '../task/json-params';
import type { JsonValue } from '../types';

/** Most bytes of parents' results a child run is handed (`ctx.parentResults`). */
export const MAX_PARENT_RESULTS_BYTES = 64 * 1024;

/**
 * What a child run of a flow sees of its parents (issue 14 item 3): each parent task's result in
 * this flow, by task name, as JSON text (the column `runs.parent_results`); null when none has a
 * result. Bounded: when they add up to more than `maxBytes`, the largest are replaced, one by
 * one, by `{ "truncated": true, "bytes": n }` so the child still learns the parent ran.
 */
export function parentResultsJson(results: ReadonlyArray<{ taskName: string; resultJson: string | null }>, maxBytes = MAX_PARENT_RESULTS_BYTES): string | null {
  const entries = results.filter((r) => r.resultJson !== null) as Array<{ taskName: string; resultJson: string }>;
  if (entries.length === 0) return null;
  const texts = new Map(entries.map((e) => [e.taskName, e.resultJson]));
  const size = () => [...texts].reduce((n, [name, text]) => n + utf8ByteLength(name) + utf8ByteLength(text) + 4, 2);
  while (size() > maxBytes) {
    const [largest, text] = [...texts].filter(([, t]) => !t.startsWith('{"truncated":true')).sort((a, b) => utf8ByteLength(b[1]) - utf8ByteLength(a[1]))[0] ?? [];
    if (largest === undefined) break;
    texts.set(largest, JSON.stringify({ truncated: true, bytes: utf8ByteLength(text!) }));
  }
  return `{${[...texts].map(([name, text]) => `${JSON.stringify(name)}:${text}`).join(',')}}`;
}

/** The parents' results a child run carries, parsed ({} when none). */
export function parseParentResults(json: string | null): Record<string, JsonValue> {
  return json === null ? {} : (JSON.parse(json) as Record<string, JsonValue>);
}
