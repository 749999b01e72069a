import { MAX_CALLBACKS_PER_BATCH, PATHS, type CallbackBatchReply, type RunCallback } from '@baton/protocol';
import { Coalescer } from '@baton/scheduling';
import { callbackJson } from './callback-json';
import type { EngineAnswer, EngineClient } from './engine-client';
import { RequestSlots } from './request-slots';

/** A batch request's body stays under this (the engine takes signed bodies up to 2 MiB). */
const MAX_BATCH_BYTES = 1024 * 1024;
/** A callback larger than this (big result, many log lines) is sent on its own. */
const MAX_BATCHED_CALLBACK_BYTES = 64 * 1024;

/**
 * Final callbacks to one engine, sent together: the callbacks that are ready at the same
 * moment (a burst of short runs ends together) go as one POST /baton/callbacks/batch, and each
 * gets back its own answer, as if sent alone. Measured before batching: the executor's CPU per
 * run was mostly one HTTP exchange per callback, and the engine's likewise.
 *
 * A lone callback, and a large one, use the plain route. An engine that answers 404 to a batch
 * has no batch route (an older engine, another implementation): from then on its callbacks go
 * one by one. A batch refused as a whole for its shape or size (400, 413) is sent one by one
 * too, so each callback is judged on its own; any other answer to the batch (no answer, 5xx,
 * 401, 429) is every callback's answer, and the sender retries them as it would one. At most
 * `concurrency` requests are in flight at once, to all engines together, not counting those
 * unanswered for `rerouteAfterMs` (their callbacks have gone to the next engine meanwhile): a
 * hanging engine keeps its requests (at most two batches) but not the slots other engines need.
 */
export class CallbackBatches {
  private readonly perEngine = new Map<string, Coalescer<RunCallback, EngineAnswer>>();
  private readonly withoutBatchRoute = new Set<string>();
  private readonly slots: RequestSlots;

  constructor(
    private readonly client: EngineClient,
    concurrency: number,
    /** A request unanswered this long gives its slot back (default: it keeps it until it ends). */
    private readonly rerouteAfterMs?: number,
  ) {
    this.slots = new RequestSlots(concurrency);
  }

  send(url: string, callback: RunCallback): Promise<EngineAnswer> {
    if (this.withoutBatchRoute.has(url)) return this.post(url, PATHS.callback, callbackJson(callback));
    let batches = this.perEngine.get(url);
    if (!batches) {
      batches = new Coalescer((callbacks) => this.flush(url, callbacks), { maxBatch: MAX_CALLBACKS_PER_BATCH, concurrency: 2 });
      this.perEngine.set(url, batches);
    }
    return batches.push(callback);
  }

  private async flush(url: string, callbacks: RunCallback[]): Promise<EngineAnswer[]> {
    const texts = callbacks.map(callbackJson);
    // Groups of indexes, each one request: big callbacks alone, the rest up to MAX_BATCH_BYTES.
    const groups: number[][] = [];
    let group: number[] = [];
    let bytes = 0;
    texts.forEach((text, i) => {
      if (text.length > MAX_BATCHED_CALLBACK_BYTES) {
        groups.push([i]);
        return;
      }
      if (group.length > 0 && bytes + text.length > MAX_BATCH_BYTES) {
        groups.push(group);
        group = [];
        bytes = 0;
      }
      group.push(i);
      bytes += text.length + 1;
    });
    if (group.length > 0) groups.push(group);
    const answers = await Promise.all(groups.map((g) => this.sendGroup(url, g, texts)));
    const out = new Array<EngineAnswer>(callbacks.length);
    groups.forEach((g, k) => g.forEach((index, j) => (out[index] = answers[k][j])));
    return out;
  }

  private async sendGroup(url: string, indexes: number[], texts: string[]): Promise<EngineAnswer[]> {
    const alone = (i: number) => this.post(url, PATHS.callback, texts[i]);
    if (indexes.length === 1 || this.withoutBatchRoute.has(url)) return Promise.all(indexes.map(alone));
    const answer = await this.post(url, PATHS.callbackBatch, `{"callbacks":[${indexes.map((i) => texts[i]).join(',')}]}`);
    if (answer.status === 404) this.withoutBatchRoute.add(url);
    if (answer.status === 404 || answer.status === 400 || answer.status === 413) return Promise.all(indexes.map(alone));
    const results = answer.status === 200 ? (answer.body as Partial<CallbackBatchReply> | null)?.results : undefined;
    if (!Array.isArray(results) || results.length !== indexes.length) {
      if (answer.status !== 200) return indexes.map(() => answer);
      return indexes.map(() => ({ url, status: 0, body: null, error: 'malformed batch reply' }));
    }
    return results.map((r) => ({ url, status: r.status, body: r.body }));
  }

  private post(url: string, path: string, body: string): Promise<EngineAnswer> {
    return this.slots.run(() => this.client.postJson(url, path, body), this.rerouteAfterMs);
  }
}
