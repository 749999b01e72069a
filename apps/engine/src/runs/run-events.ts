import { Injectable } from '@nestjs/common';

/**
 * In-process notice that an attempt has ended (its outcome callback was committed on this
 * node), for the bench-only synchronous dispatch, which holds the slot until then; and the room
 * its executor reported, for credit-based flow control.
 */
@Injectable()
export class RunEvents {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly creditListeners: Array<(executorId: number, credit: number, creditSeq: number) => void> = [];

  /** Called with the room an executor reported in the outcome callback of an attempt that ended on this node. */
  onExecutorCredit(listener: (executorId: number, credit: number, creditSeq: number) => void): void {
    this.creditListeners.push(listener);
  }

  /** The executor that ran an ended attempt reported its room (credit-based flow control). */
  executorCredit(executorId: number, credit: number, creditSeq: number): void {
    for (const listener of this.creditListeners) listener(executorId, credit, creditSeq);
  }

  /** The attempt's outcome was committed here. */
  ended(runId: number, attempt: number): void {
    const key = `${runId}:${attempt}`;
    const set = this.waiters.get(key);
    if (!set) return;
    this.waiters.delete(key);
    for (const wake of set) wake();
  }

  /** Resolves true when the attempt ends on this node, false after `timeoutMs`. */
  waitFor(runId: number, attempt: number, timeoutMs: number): Promise<boolean> {
    const key = `${runId}:${attempt}`;
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      set.add(wake);
    });
  }
}
