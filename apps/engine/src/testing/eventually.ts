/**
 * How long `eventually` polls by default: below vitest's 90 s test timeout (vitest.config.ts).
 * The bound only makes a wait for something that never comes fail naming what it waited for; a
 * wait for something that will come must not fail because a loaded machine made it late (a
 * guessed 5 s did, on a shared CI machine).
 */
export const EVENTUALLY_CEILING_MS = 60_000;

/**
 * Polls `check` (sync or async) until it returns a value other than undefined/false, or fails
 * after `timeoutMs` naming `what` and the last error `check` threw. Pass `timeoutMs` only where
 * the bound is what the test checks (something must come well before a slower path would bring
 * it). Real timers: not for a test that fakes them.
 */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what = 'condition', timeoutMs = EVENTUALLY_CEILING_MS): Promise<T> {
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
