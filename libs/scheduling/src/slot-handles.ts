import type { QueueHandle } from './timer-queue';

/**
 * Handles are `generation * SLOT_SPACE + slot`, both parts below 2^26, so the
 * number stays an exact integer (< 2^52). A slot's generation is bumped each
 * time it is freed; a handle to a previous occupant then no longer matches.
 * Generations wrap after 2^26 reuses of one slot: a handle kept that long and
 * used exactly at the wrap would alias — accepted, it needs 67 M reuses.
 */
export const SLOT_SPACE = 2 ** 26;
export const GEN_MASK = SLOT_SPACE - 1;
/** Most events one queue can hold at once (slot ids must fit SLOT_SPACE). */
export const MAX_SLOTS = SLOT_SPACE;

export function encodeHandle(slot: number, generation: number): QueueHandle {
  return (generation * SLOT_SPACE + slot) as QueueHandle;
}

/** Slot of a handle, or -1 when the value cannot be a handle at all. */
export function handleSlot(handle: number): number {
  if (!Number.isInteger(handle) || handle < 0) return -1;
  return handle % SLOT_SPACE;
}

export function handleGeneration(handle: number): number {
  return Math.floor(handle / SLOT_SPACE);
}

/** Doubles a typed array's length, keeping its contents. */
export function grown<A extends Float64Array | Int32Array | Uint8Array>(arr: A, length: number): A {
  const next = new (arr.constructor as new (n: number) => A)(length);
  next.set(arr);
  return next;
}

export function checkFinite(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a finite number, got ${String(value)}`);
  }
}

/** The Date range: ±100 000 000 days from the epoch, in ms. */
export const MAX_TIME = 8.64e15;

/** A due time must be an epoch-ms number a Date can hold (so day numbers stay exact integers). */
export function checkTime(time: number): void {
  if (typeof time !== 'number' || !(Math.abs(time) <= MAX_TIME)) {
    throw new RangeError(`time must be a finite epoch-ms number within ±${MAX_TIME}, got ${String(time)}`);
  }
}
