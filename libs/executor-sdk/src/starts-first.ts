/** The longest a final callback is held back while runs wait in line to start. */
export const MOST_HELD_MS = 250;

/**
 * Holds final callbacks back while runs wait in line for a worker, at most MOST_HELD_MS: on a
 * busy machine, starting a handler that is due is worth more than reporting one that ended — a
 * report sets an engine and its database to work on the same cores. A burst sent ahead of its
 * instant (protocol 2) starts on the executors' clocks; with its callbacks going out meanwhile, a
 * 4,000-run burst's last start came ~0.6 s after its instant, with the engines and MariaDB
 * ending the first runs for half of that CPU (docs/BENCHMARKS.md). The callback is in the spool
 * already, so holding it delays the run's outcome, never loses it.
 *
 * One hold at a time: the callbacks that end during it wait for the same release — the line
 * empties, or the hold's MOST_HELD_MS pass — so they go out together, in full batches.
 */
export class StartsFirst {
  private hold: Promise<void> | null = null;

  constructor(
    /** Whether runs wait in line for a worker now. */
    private readonly lineWaiting: () => boolean,
    /** Resolves when the line is empty. */
    private readonly lineEmpty: () => Promise<void>,
    private readonly mostHeldMs = MOST_HELD_MS,
  ) {}

  /** Resolves when a final callback may go: at once unless runs wait in line to start. */
  turn(): Promise<void> {
    if (this.mostHeldMs <= 0 || !this.lineWaiting()) return Promise.resolve();
    this.hold ??= this.newHold();
    return this.hold;
  }

  private newHold(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const passed = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.mostHeldMs)));
    return Promise.race([this.lineEmpty(), passed]).finally(() => {
      clearTimeout(timer);
      this.hold = null;
    });
  }
}
