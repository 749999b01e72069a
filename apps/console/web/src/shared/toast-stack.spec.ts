import { describe, expect, it } from 'vitest';
import { MAX_TOASTS, stackToasts, type Stackable } from './toast-stack';

type T = Stackable & { id: string };
const notice = (id: string): T => ({ id, kind: 'info' });
const alarm = (id: string, severity: 'INFO' | 'WARNING' | 'CRITICAL'): T => ({ id, kind: 'alarm', alarm: { severity } });
const ids = (ts: readonly T[]) => ts.map((x) => x.id);

describe('the pop-up stack', () => {
  it('shows everything up to its size', () => {
    let shown: T[] = [];
    for (let i = 0; i < MAX_TOASTS; i++) {
      const r = stackToasts(shown, alarm(`a${i}`, 'CRITICAL'));
      expect(r.alarmsOut).toBe(0);
      shown = r.shown;
    }
    expect(ids(shown)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
  });

  it('lets a notice go before any alarm, then INFO before WARNING before CRITICAL, oldest first', () => {
    const full = [alarm('c1', 'CRITICAL'), alarm('w1', 'WARNING'), notice('n1'), alarm('i1', 'INFO'), alarm('w2', 'WARNING')];
    let r = stackToasts(full, alarm('c2', 'CRITICAL'));
    expect(ids(r.shown)).toEqual(['c1', 'w1', 'i1', 'w2', 'c2']);
    expect(r.alarmsOut).toBe(0);
    r = stackToasts(r.shown, alarm('c3', 'CRITICAL'));
    expect(ids(r.shown)).toEqual(['c1', 'w1', 'w2', 'c2', 'c3']);
    expect(r.alarmsOut).toBe(1);
    r = stackToasts(r.shown, alarm('c4', 'CRITICAL'));
    expect(ids(r.shown)).toEqual(['c1', 'w2', 'c2', 'c3', 'c4']);
  });

  it('keeps the newest even when it ranks lowest, and counts the CRITICAL alarm that gave way for it', () => {
    const full = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => alarm(id, 'CRITICAL'));
    const r = stackToasts(full, notice('n1'));
    expect(ids(r.shown)).toEqual(['c2', 'c3', 'c4', 'c5', 'n1']);
    expect(r.alarmsOut).toBe(1);
  });

  it('takes ten alarms at once: five show, five are counted out, INFO ones first', () => {
    let shown: T[] = [];
    let out = 0;
    for (let i = 0; i < 10; i++) {
      const r = stackToasts(shown, alarm(`x${i}`, i % 2 === 0 ? 'CRITICAL' : 'INFO'));
      shown = r.shown;
      out += r.alarmsOut;
    }
    expect(shown).toHaveLength(MAX_TOASTS);
    expect(out).toBe(5);
    // x1, x3, x5, x7 (INFO) gave way to later ones; x9 (INFO, the newest) shows, and the oldest CRITICAL, x0, gave way to it.
    expect(ids(shown)).toEqual(['x2', 'x4', 'x6', 'x8', 'x9']);
  });
});
