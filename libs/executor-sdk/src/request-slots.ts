/** Runs at most `limit` tasks at once; the others wait for a free slot, first come first served. */
export class RequestSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /**
   * Runs `task` once a slot is free. With `giveBackAfterMs`, a task still running after that long
   * gives its slot back and goes on uncounted: a request to an engine that hangs (its callbacks
   * went to the next engine meanwhile) must not hold, until its timeout, the slots that requests
   * to the other engines need.
   */
  async run<T>(task: () => Promise<T>, giveBackAfterMs?: number): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    const giveBack = () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
    const timer = giveBackAfterMs === undefined ? undefined : setTimeout(giveBack, giveBackAfterMs);
    timer?.unref?.();
    try {
      return await task();
    } finally {
      clearTimeout(timer);
      giveBack();
    }
  }
}
