import type { Clock } from '@baton/domain';
import { MAX_WAKE_RUNS } from '@baton/protocol';

/**
 * Kicks a key may make back to back before the floor spaces them: a tenant's wake-ups arrive at
 * random, not one per floor, and with a strict one-per-floor rule most of a 50/s trickle (one
 * engine's half of 100 triggers a second) fell inside the previous kick's window and waited for
 * its end, ~10 ms at the median. With a burst of 10 the long-run bound is the same (one kick per
 * floorMs) and a trickle at or below it is kicked at once.
 */
export const WAKE_BURST = 10;

/** A trailing kick: its cancel, and the runs the coalesced wake-ups named (null: one named none, or more than MAX_WAKE_RUNS). */
interface Trailing {
  cancel: () => void;
  runIds: number[] | null;
}

/**
 * At most WAKE_BURST kicks per key (a tenant) at once and one per `floorMs` in the long run (a
 * token bucket, kept as each key's theoretical next time: GCRA): a wake-up within the key's
 * allowance kicks at once (run-now stays immediate), with the runs it names; one beyond it waits
 * for the next allowed time, and those that follow meanwhile coalesce into that one kick, naming
 * the runs they all named (claimed by id: two statements, not a claim turn's six), or none when
 * one of them named none or they named more than MAX_WAKE_RUNS (a claim turn then reads the
 * tenant's due runs), so none is lost and none costs a claim turn of its own. Bounds what a tenant
 * holding its executor secret can make an engine do with `POST /baton/wake`: WAKE_BURST + t ÷
 * floorMs claim turns in any t ms, not one per request. The trailing kicks are the clock's timers
 * (a test's ManualClock fires them as it moves), cleared by `clear()` (shutdown).
 */
export class WakeFloor {
  /** Each key's theoretical next kick time: its allowance is full once this is in the past. */
  private readonly nextAt = new Map<string, number>();
  /** The pending trailing kicks. */
  private readonly pending = new Map<string, Trailing>();

  constructor(
    private readonly floorMs: number,
    private readonly clock: Clock,
    private readonly kick: (key: string, runIds?: readonly number[]) => void,
  ) {}

  /** A wake-up for `key`, naming `runIds` or not: kicks now (with them), or once at the key's next allowed time. */
  wake(key: string, runIds?: readonly number[]): void {
    const trailing = this.pending.get(key);
    if (trailing) {
      trailing.runIds = trailing.runIds && runIds && trailing.runIds.length + runIds.length <= MAX_WAKE_RUNS ? [...trailing.runIds, ...runIds] : null;
      return;
    }
    const now = this.clock.now();
    const next = Math.max(this.nextAt.get(key) ?? now, now);
    const at = next - (WAKE_BURST - 1) * this.floorMs;
    this.nextAt.set(key, next + this.floorMs);
    if (at <= now) {
      this.forgetRefilled(now);
      this.kick(key, runIds);
      return;
    }
    const later: Trailing = { runIds: runIds ? [...runIds] : null, cancel: () => undefined };
    later.cancel = this.clock.after(at - now, () => {
      this.pending.delete(key);
      this.kick(key, later.runIds ?? undefined);
    });
    this.pending.set(key, later);
  }

  /** Drops the pending kicks (shutdown). */
  clear(): void {
    for (const trailing of this.pending.values()) trailing.cancel();
    this.pending.clear();
    this.nextAt.clear();
  }

  /** Keys whose allowance is full again need no entry: the map holds only the recently woken. */
  private forgetRefilled(now: number): void {
    if (this.nextAt.size < 1024) return;
    for (const [key, at] of this.nextAt) if (at <= now && !this.pending.has(key)) this.nextAt.delete(key);
  }
}
