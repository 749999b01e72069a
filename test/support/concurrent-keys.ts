import { expect } from 'vitest';

/** Four orders of the same keys: as given, reversed, interleaved, sorted — as two consoles' batches may hold them. */
export function keyOrders(keys: readonly string[]): string[][] {
  return [[...keys], [...keys].reverse(), keys.filter((_, i) => i % 3 === 0).concat(keys.filter((_, i) => i % 3 !== 0)), [...keys].sort()];
}

/**
 * Each key answered with one row by every batch that wrote it, and made (created) by exactly one:
 * `answers[b][i]` is batch b's answer to its `orders[b][i]`.
 */
export function expectOneMadePerKey(keys: readonly string[], orders: readonly string[][], answers: ReadonlyArray<ReadonlyArray<{ row: { id: number }; created: boolean }>>): void {
  const byKey = new Map<string, Array<{ id: number; created: boolean }>>();
  answers.forEach((batch, b) => batch.forEach(({ row, created }, i) => byKey.set(orders[b][i], [...(byKey.get(orders[b][i]) ?? []), { id: row.id, created }])));
  for (const key of keys) {
    const got = byKey.get(key) ?? [];
    expect(got, key).toHaveLength(orders.filter((o) => o.includes(key)).length);
    expect(new Set(got.map((a) => a.id)).size, key).toBe(1);
    expect(got.filter((a) => a.created), key).toHaveLength(1);
  }
}
