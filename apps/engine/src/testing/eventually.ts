/**
 * Polls `check` (sync or async) until it returns a value other than undefined/false, or fails
 * after `timeoutMs` naming `what` and the last error `check` threw. Real timers: not for a test
 * that fakes them.
 */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
