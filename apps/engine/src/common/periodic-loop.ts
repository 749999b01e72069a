import type { LoggerService } from '@nestjs/common';

/**
 * What one turn of a loop returns: the delay before the next turn in ms (0 = at once, as the
 * claimer does after a full batch), or undefined for the loop's regular period.
 */
export type LoopTurn = () => Promise<number | void>;

/**
 * A background loop of the engine (heartbeat, planner, claimer, lease renewal): one turn at a
 * time, the next scheduled only when the previous one has ended — a slow database makes the
 * loop slower, never makes turns pile up (setInterval would). A failing turn is logged and the
 * loop goes on after its regular period: a database hiccup must not kill an engine.
 * Timers are unref'd: the loops never keep a process alive on their own; the HTTP server or
 * the host application does. A kicked turn runs on setImmediate, not on a 0 ms timer, which Node
 * rounds up to 1 ms: a wake-up's claim would wait that long. A turn that asks for another at once
 * still gets the timer: one that finds nothing to do, without I/O, and asks again would otherwise
 * spin the event loop.
 */
export class PeriodicLoop {
  /** Cancels the scheduled turn (a timer, or an immediate); null when none is scheduled. */
  private cancel: (() => void) | null = null;
  private current: Promise<void> | null = null;
  private running = false;
  private kicked = false;

  constructor(
    readonly name: string,
    private readonly periodMs: number,
    private readonly turn: LoopTurn,
    private readonly logger: LoggerService,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the loop; the first turn runs after `initialDelayMs` (default: at once). */
  start(initialDelayMs = 0): void {
    if (this.running) return;
    this.running = true;
    this.schedule(initialDelayMs);
  }

  /**
   * Runs the next turn now instead of after the wait (something it should handle just happened,
   * e.g. an alarm was committed). A turn in progress is followed by another one at once. No-op
   * when the loop is stopped.
   */
  kick(): void {
    if (!this.running) return;
    if (this.current) {
      this.kicked = true;
      return;
    }
    this.disarm();
    this.schedule(0, true);
  }

  /** Stops the loop and waits for a turn in progress to end. */
  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    await this.current;
  }

  private schedule(delayMs: number, immediately = false): void {
    if (!this.running) return;
    const fire = () => {
      this.cancel = null;
      this.current = this.runTurn();
    };
    if (immediately) {
      const immediate = setImmediate(fire).unref();
      this.cancel = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(fire, delayMs).unref();
      this.cancel = () => clearTimeout(timer);
    }
  }

  private disarm(): void {
    this.cancel?.();
    this.cancel = null;
  }

  private async runTurn(): Promise<void> {
    let next = this.periodMs;
    try {
      const requested = await this.turn();
      if (typeof requested === 'number') next = requested;
    } catch (err) {
      this.logger.error(`${this.name} failed: ${(err as Error).stack ?? String(err)}`);
    } finally {
      this.current = null;
    }
    if (this.kicked) {
      this.kicked = false;
      this.schedule(0, true);
    } else {
      this.schedule(next);
    }
  }
}
