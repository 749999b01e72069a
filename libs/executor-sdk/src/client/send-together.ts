import { Coalescer } from '@baton/scheduling';
import { BatonApiError, type FieldProblem } from './baton-api-error';

/** Most bytes of one request's body: under the console's 1 MB JSON limit, whatever the items weigh. */
const MAX_REQUEST_BYTES = 900_000;

/** An item's result in a batch answer (a run's or an event's): its status, and what the console said when it refused it. */
export interface ItemResult {
  status: number;
  error?: { code: string; message: string; errors?: FieldProblem[] };
}

/** An item's outcome: its result in the answer of the request that carried it, or that request's failure. */
export type Sent<R> = { result: R } | { failure: unknown };

/** Where items sent one at a time wait to go together. */
export interface Together<I, R> {
  /** The item's outcome once its request is answered; throws at once for an item that is not JSON (a BigInt, a cycle), which never joins a request. */
  push(item: I): Promise<Sent<R>>;
  /** Items waiting or in flight. */
  readonly pending: number;
}

/** How items sent one at a time go together. */
export interface SendTogetherOptions<I, R extends ItemResult> {
  /** Sends one batch request; each item's result in order. */
  send: (items: readonly I[]) => Promise<R[]>;
  /** Most items one request takes (the console's bound for that batch). */
  maxItems: number;
  /** Requests in flight at once; the items submitted meanwhile go together in the next. */
  concurrency: number;
}

/**
 * Items submitted one at a time, sent together (the group commit of a client): each leaves on the
 * next turn of the event loop, alone at a trickle; while `concurrency` requests are in flight, the
 * items submitted meanwhile wait and go together in the next, in as many requests as their bytes
 * need. A request refused as a whole (400: an item whose shape or depth the console refuses before
 * writing anything; 413) is sent again in halves down to the item at fault, which gets that
 * refusal alone: a bad item never costs the items it was sent with (about 2·log2(n) more requests
 * for one bad item among n). Each item's outcome is its own request's: when one half's request
 * fails (429 after its retries, no answer), the other half's items still have their runs.
 */
export function sendTogether<I, R extends ItemResult>(options: SendTogetherOptions<I, R>): Together<I, R> {
  const sendSplitting = async (items: readonly I[]): Promise<Array<Sent<R>>> => {
    try {
      const results = await options.send(items);
      if (results.length !== items.length) throw new BatonApiError(0, 'BAD_ANSWER', `the console answered ${results.length} results for ${items.length} items`);
      return results.map((result) => ({ result }));
    } catch (err) {
      if (!(err instanceof BatonApiError) || (err.status !== 400 && err.status !== 413)) return items.map(() => ({ failure: err }));
      if (items.length === 1) return [{ result: { status: err.status, error: { code: err.code, message: err.message, errors: err.errors } } as R }];
      const half = Math.ceil(items.length / 2);
      return (await Promise.all([sendSplitting(items.slice(0, half)), sendSplitting(items.slice(half))])).flat();
    }
  };
  const lane = new Coalescer<{ item: I; bytes: number }, Sent<R>>(
    async (sized) => {
      const requests: I[][] = [[]];
      let bytes = 0;
      for (const { item, bytes: size } of sized) {
        if (bytes + size > MAX_REQUEST_BYTES && requests[requests.length - 1].length > 0) [requests[requests.length], bytes] = [[], 0];
        requests[requests.length - 1].push(item);
        bytes += size;
      }
      return (await Promise.all(requests.map(sendSplitting))).flat();
    },
    { maxBatch: options.maxItems, concurrency: options.concurrency },
  );
  return {
    push: (item) => lane.push({ item, bytes: Buffer.byteLength(JSON.stringify(item)) + 1 }),
    get pending() {
      return lane.pending;
    },
  };
}

/**
 * An item's refusal as its submitter's error: the console's status and code, its fields named as
 * the submitter knows them (`params.width`, not the batch's `runs[3].params.width`).
 */
export function itemError(result: ItemResult, batchField: string): BatonApiError {
  const error = result.error ?? { code: `HTTP_${result.status}`, message: `HTTP ${result.status}` };
  // `runs[17].params.ms` is `params.ms`, and `runs[17]` itself `run`: the 17 is a place in a request the submitter never saw (the message names them so too).
  const place = new RegExp(`\\b${batchField}\\[\\d+\\](\\.)?`, 'g');
  const own = (text: string) => text.replace(place, (_, dot: string | undefined) => (dot ? '' : batchField.replace(/s$/, '')));
  return new BatonApiError(result.status, error.code, own(error.message), (error.errors ?? []).map((e) => ({ ...e, field: own(e.field) })));
}
