/**
 * The contract shared by the engine's in-memory timer structures (the calendar
 * queue and the binary-heap baseline), so the engine, the tests and the
 * benchmark can swap one for the other.
 *
 * Ordering key of an event: (time asc, priority desc, insertion order asc).
 * Priority only orders events due at the *same* millisecond; it never moves an
 * event across real time. That is our reading of PRAM's "virtual timestamp"
 * (§3.1: virtual = real + increment(type, priority)): the increment lives in a
 * sub-millisecond dimension instead of being added to the real time, because
 * the engine fires a run exactly at its due millisecond — adding even 1 ms per
 * priority step would fire low-priority runs late (START_LATE alarms, misfires)
 * and high-priority runs would still not fire early. Within one instant the
 * engine has thousands of runs and a token budget, so that is where the order
 * matters.
 */

declare const queueHandleBrand: unique symbol;

/**
 * Opaque id of a queued event, returned by `enqueue`, accepted by `remove`.
 * A number (no allocation per event); it carries a generation, so a handle
 * whose event already left the queue is recognised as stale, not mistaken for
 * the slot's next occupant.
 */
export type QueueHandle = number & { readonly [queueHandleBrand]: true };

export interface TimerQueue<T> {
  /** Number of events queued (removed events excluded). */
  readonly size: number;
  /**
   * Adds an event due at `time` (epoch ms, within the Date range ±8.64e15).
   * `priority` (default 0) orders events due at the same time: higher first,
   * then FIFO. Throws RangeError for a time out of range or a non-finite priority.
   */
  enqueue(item: T, time: number, priority?: number): QueueHandle;
  /** Due time of the first event, or undefined when empty. */
  peekTime(): number | undefined;
  /** The first event, without removing it. */
  peek(): T | undefined;
  /** Removes and returns the first event, or undefined when empty. */
  dequeue(): T | undefined;
  /**
   * Removes and returns, in order, the events due at or before `now`, at most
   * `max` of them (default: all). The engine's main call: one call per timer tick.
   */
  popDue(now: number, max?: number): T[];
  /** Removes one event (a run cancelled while queued). False if it already left. */
  remove(handle: QueueHandle): boolean;
  /** True while the event of `handle` is queued. */
  has(handle: QueueHandle): boolean;
  /** Removes every event for which `pred` is true; returns how many. O(capacity). */
  removeWhere(pred: (item: T, time: number) => boolean): number;
  /** Drops every event. Outstanding handles become stale. */
  clear(): void;
}
