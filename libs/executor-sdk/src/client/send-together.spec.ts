import { describe, expect, it } from 'vitest';
import { BatonApiError } from './baton-api-error';
import { sendTogether, type ItemResult } from './send-together';

type Result = ItemResult & { item?: string };

/** A console stand-in: refuses a request holding "deep" as a whole (400), and one holding "busy" with a 429; answers each other item. */
function console_() {
  const requests: string[][] = [];
  const send = async (items: readonly string[]): Promise<Result[]> => {
    requests.push([...items]);
    if (items.includes('deep')) throw new BatonApiError(400, 'VALIDATION_FAILED', 'too deep', [{ field: 'runs', reason: 'nested too deep' }]);
    if (items.includes('busy')) throw new BatonApiError(429, 'RATE_LIMITED', 'busy');
    return items.map((item) => ({ status: 201, item }));
  };
  return { requests, send };
}

describe('sendTogether', () => {
  it('sends what is pushed in one turn together and answers each item in order', async () => {
    const c = console_();
    const lane = sendTogether({ send: c.send, maxItems: 100, concurrency: 1 });
    const sent = await Promise.all(['a', 'b', 'c'].map((item) => lane.push(item)));
    expect(sent).toEqual([{ result: { status: 201, item: 'a' } }, { result: { status: 201, item: 'b' } }, { result: { status: 201, item: 'c' } }]);
    expect(c.requests).toEqual([['a', 'b', 'c']]);
  });

  it('splits a request refused whole down to the item at fault: its neighbours are answered, it gets the refusal', async () => {
    const c = console_();
    const lane = sendTogether({ send: c.send, maxItems: 100, concurrency: 1 });
    const sent = await Promise.all(['a', 'b', 'deep', 'c'].map((item) => lane.push(item)));
    expect(sent.map((s) => ('result' in s ? s.result.status : 'failed'))).toEqual([201, 201, 400, 201]);
    expect(sent[2]).toEqual({ result: { status: 400, error: { code: 'VALIDATION_FAILED', message: 'too deep', errors: [{ field: 'runs', reason: 'nested too deep' }] } } });
  });

  it('answers each half on its own: a half whose request fails does not take the other half made with it', async () => {
    const c = console_();
    const lane = sendTogether({ send: c.send, maxItems: 100, concurrency: 1 });
    // Split as [a, deep] and [busy, b]: the first half splits again, the second fails with 429.
    const sent = await Promise.all(['a', 'deep', 'busy', 'b'].map((item) => lane.push(item)));
    expect('result' in sent[0] && sent[0].result).toEqual({ status: 201, item: 'a' });
    expect('result' in sent[1] && sent[1].result.status).toBe(400);
    for (const s of sent.slice(2)) expect('failure' in s && (s.failure as BatonApiError).status).toBe(429);
  });

  it('refuses an item that is not JSON to its caller at once: it never joins, nor fails, a request', async () => {
    const c = console_();
    const lane = sendTogether<unknown, Result>({ send: c.send as (items: readonly unknown[]) => Promise<Result[]>, maxItems: 100, concurrency: 1 });
    const good = lane.push('a');
    expect(() => lane.push({ n: 1n })).toThrow(/BigInt/);
    expect(await good).toEqual({ result: { status: 201, item: 'a' } });
    expect(c.requests).toEqual([['a']]);
  });
});
