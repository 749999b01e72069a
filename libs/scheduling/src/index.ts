/**
 * @baton/scheduling — the engine's pure scheduling structures: the timer
 * queue that holds claimed runs until their due millisecond (calendar queue
 * with PRAM resizing; binary heap as baseline), token buckets that pace
 * dispatch per tenant and per task queue, executor routing strategies, and the
 * Coalescer that batches concurrent requests (engine writes, executor callbacks), and
 * OneAtATime, which runs each key's jobs one after another.
 * No Nest, no I/O, no clock: every time is passed in as epoch milliseconds (the
 * Coalescer only defers to the end of the event loop's turn).
 */
export type { QueueHandle, TimerQueue } from './timer-queue';
export { BinaryHeap } from './binary-heap';
export type { BinaryHeapOptions } from './binary-heap';
export * from './calendar-queue';
export * from './token-bucket';
export * from './routing';
export * from './coalescer';
export * from './fairness';
export * from './one-at-a-time';
