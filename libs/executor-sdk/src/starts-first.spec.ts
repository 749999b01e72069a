import { afterEach, describe, expect, it, vi } from 'vitest';
import { StartsFirst } from './starts-first';

describe('StartsFirst', () => {
  afterEach(() => vi.useRealTimers());

  const settled = async (p: Promise<void>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    return done;
  };

  it('lets a final callback go at once when no run waits in line', async () => {
    vi.useFakeTimers();
    const gate = new StartsFirst(() => false, () => new Promise(() => undefined));
    expect(await settled(gate.turn())).toBe(true);
  });

  it('holds callbacks while runs wait in line, all of them until the line empties', async () => {
    vi.useFakeTimers();
    let empty!: () => void;
    const gate = new StartsFirst(() => true, () => new Promise<void>((resolve) => (empty = resolve)));
    const first = gate.turn();
    const second = gate.turn();
    expect(await settled(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(second)).toBe(false);
    empty();
    expect([await settled(first), await settled(second)]).toEqual([true, true]);
  });

  it('holds them at most its limit while the line stays full, then a new hold starts', async () => {
    vi.useFakeTimers();
    const gate = new StartsFirst(() => true, () => new Promise(() => undefined), 250);
    const held = gate.turn();
    await vi.advanceTimersByTimeAsync(249);
    expect(await settled(held)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(held)).toBe(true);
    const next = gate.turn();
    expect(next).not.toBe(held);
    expect(await settled(next)).toBe(false);
  });
});
