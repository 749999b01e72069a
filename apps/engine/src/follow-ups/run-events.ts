import { Injectable } from '@nestjs/common';

/**
 * In-process notice that an attempt has ended (its outcome callback was committed on this
 * node). Used by the bench-only synchronous dispatch, which holds the slot until then.
 */
@Injectable()
export class RunEvents {
  private readonly waiters = new Map<string, Set<() => void>>();

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
