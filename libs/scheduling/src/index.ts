/**
 * @baton/scheduling — the engine's pure scheduling structures: the timer
 * queue that holds claimed runs until their due millisecond (calendar queue
 * with PRAM resizing; binary heap as baseline), token buckets that pace
 * dispatch per tenant and per task queue, and executor routing strategies.
 * No Nest, no I/O, no clock: every time is passed in as epoch milliseconds.
 */
export type { QueueHandle, TimerQueue } from './timer-queue';
export { BinaryHeap } from './binary-heap';
export type { BinaryHeapOptions } from './binary-heap';
export * from './calendar-queue';
export * from './token-bucket';
export * from './routing';
