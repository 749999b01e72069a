import type { Clock } from '@baton/domain';

/**
 * At most one kick per key (a tenant) per `floorMs`: the first wake-up of a quiet key kicks at
 * once (run-now stays immediate), with the runs it names; those that follow inside the window
 * coalesce into one kick at the window's end, naming none (a claim turn then reads the tenant's
 * due runs), so none is lost and none costs a claim turn of its own. Bounds what a tenant
 * holding its executor secret can make an engine do with `POST /baton/wake`: one claim turn per
 * floorMs, not one per request. The trailing kicks are the clock's timers (a test's ManualClock
 * fires them as it moves), cleared by `clear()` (shutdown).
 */
export class WakeFloor {
  /** When each key last kicked (or will, when a trailing kick is pending). */
  private readonly lastKick = new Map<string, number>();
  /** Cancels of the pending trailing kicks. */
  private readonly pending = new Map<string, () => void>();

  constructor(
    private readonly floorMs: number,
    private readonly clock: Clock,
    private readonly kick: (key: string, runIds?: readonly number[]) => void,
  ) {}

  /** A wake-up for `key`, naming `runIds` or not: kicks now (with them), or once at the end of the key's window. */
  wake(key: string, runIds?: readonly number[]): void {
    if (this.pending.has(key)) return;
    const now = this.clock.now();
    const at = (this.lastKick.get(key) ?? -Infinity) + this.floorMs;
    if (at <= now) {
      this.forgetOlderThan(now - this.floorMs);
      this.lastKick.set(key, now);
      this.kick(key, runIds);
      return;
    }
    this.lastKick.set(key, at);
    const cancel = this.clock.after(at - now, () => {
      this.pending.delete(key);
      this.kick(key);
    });
    this.pending.set(key, cancel);
  }

  /** Drops the pending kicks (shutdown). */
  clear(): void {
    for (const cancel of this.pending.values()) cancel();
    this.pending.clear();
    this.lastKick.clear();
  }

  /** Keys whose window has passed need no entry: the map holds only the recently woken. */
  private forgetOlderThan(before: number): void {
    if (this.lastKick.size < 1024) return;
    for (const [key, at] of this.lastKick) if (at <= before && !this.pending.has(key)) this.lastKick.delete(key);
  }
}
