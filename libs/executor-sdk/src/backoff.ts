/**
 * Delay before retry number `tries` (1-based): exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (between half and all of the exponential value) so that many executors
 * retrying against a recovering engine do not arrive in lock step.
 */
export function backoffDelay(tries: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(tries - 1, 0), 30));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** A sleep that `wake()` can end early; `cancel()` resolves it too (with false). */
export class WakeableSleep {
  private readonly sleepers = new Set<(woken: boolean) => void>();

  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), ms);
      timer.unref?.();
      this.sleepers.add(done);
    });
  }

  /** Ends every sleep now. */
  wake(): void {
    for (const done of [...this.sleepers]) done(true);
  }
}
