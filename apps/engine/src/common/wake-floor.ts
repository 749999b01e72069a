import type { Clock } from '@baton/domain';
import { MAX_WAKE_RUNS } from '@baton/protocol';

/** A trailing kick: its cancel, and the runs the coalesced wake-ups named (null: one named none, or more than MAX_WAKE_RUNS). */
interface Trailing {
  cancel: () => void;
  runIds: number[] | null;
}

/**
 * At most one kick per key (a tenant) per `floorMs`: the first wake-up of a quiet key kicks at
 * once (run-now stays immediate), with the runs it names; those that follow inside the window
 * coalesce into one kick at the window's end, naming the runs they all named (claimed by id: two
 * statements, not a claim turn's six), or none when one of them named none or they named more
 * than MAX_WAKE_RUNS (a claim turn then reads the tenant's due runs), so none is lost and none
 * costs a claim turn of its own. Bounds what a tenant
 * holding its executor secret can make an engine do with `POST /baton/wake`: one claim turn per
 * floorMs, not one per request. The trailing kicks are the clock's timers (a test's ManualClock
 * fires them as it moves), cleared by `clear()` (shutdown).
 */
export class WakeFloor {
  /** When each key last kicked (or will, when a trailing kick is pending). */
  private readonly lastKick = new Map<string, number>();
  /** The pending trailing kicks. */
  private readonly pending = new Map<string, Trailing>();

  constructor(
    private readonly floorMs: number,
    private readonly clock: Clock,
    private readonly kick: (key: string, runIds?: readonly number[]) => void,
  ) {}

  /** A wake-up for `key`, naming `runIds` or not: kicks now (with them), or once at the end of the key's window. */
  wake(key: string, runIds?: readonly number[]): void {
    const trailing = this.pending.get(key);
    if (trailing) {
      trailing.runIds = trailing.runIds && runIds && trailing.runIds.length + runIds.length <= MAX_WAKE_RUNS ? [...trailing.runIds, ...runIds] : null;
      return;
    }
    const now = this.clock.now();
    const at = (this.lastKick.get(key) ?? -Infinity) + this.floorMs;
    if (at <= now) {
      this.forgetOlderThan(now - this.floorMs);
      this.lastKick.set(key, now);
      this.kick(key, runIds);
      return;
    }
    this.lastKick.set(key, at);
    const next: Trailing = { runIds: runIds ? [...runIds] : null, cancel: () => undefined };
    next.cancel = this.clock.after(at - now, () => {
      this.pending.delete(key);
      this.kick(key, next.runIds ?? undefined);
    });
    this.pending.set(key, next);
  }

  /** Drops the pending kicks (shutdown). */
  clear(): void {
    for (const trailing of this.pending.values()) trailing.cancel();
    this.pending.clear();
    this.lastKick.clear();
  }

  /** Keys whose window has passed need no entry: the map holds only the recently woken. */
  private forgetOlderThan(before: number): void {
    if (this.lastKick.size < 1024) return;
    for (const [key, at] of this.lastKick) if (at <= before && !this.pending.has(key)) this.lastKick.delete(key);
  }
}
