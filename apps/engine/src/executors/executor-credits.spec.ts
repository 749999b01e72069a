import { describe, expect, it } from 'vitest';
import { ExecutorCredits, PROBE_MAX_MS, PROBE_MIN_MS } from './executor-credits';

const T = 1_000_000;

describe('executor credits (issue 11 item 1: flow control)', () => {
  it('before any answer, the heartbeat room stands in, less what was sent', () => {
    const c = new ExecutorCredits();
    expect(c.balance(1, 4)).toBe(4);
    c.sent(1);
    c.sent(1);
    expect(c.balance(1, 4)).toBe(2);
    expect(c.maySend(1, 4, T)).toBe(true);
  });

  it("places kept for runs due now: the workers' worth, at most half the places, split between the engines", () => {
    let engines = 1;
    const c = new ExecutorCredits(() => engines);
    expect([c.kept(32, 100), c.kept(4, 100), c.kept(32, 0), c.kept(1, 0)]).toEqual([32, 4, 16, 0]);
    engines = 3;
    expect(c.kept(32, 100)).toBe(11);
  });

  it('a run sent ahead goes only beyond the kept places, and does not probe for them; a run due now takes them', () => {
    const c = new ExecutorCredits();
    c.answered(1, { kind: 'ACCEPTED', credit: 5, creditSeq: 1 }, T);
    expect(c.maySend(1, 0, T + PROBE_MAX_MS, 4)).toBe(true);
    c.sent(1);
    expect(c.maySend(1, 0, T + PROBE_MAX_MS, 4)).toBe(false); // 4 left, all kept: no probe either
    expect(c.maySend(1, 0, T + PROBE_MAX_MS)).toBe(true);
  });

  it("an answer's credit is the truth; requests still unanswered count against it", () => {
    const c = new ExecutorCredits();
    for (let i = 0; i < 3; i++) c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 100 }, T);
    expect(c.balance(1, 4)).toBe(98); // two requests still on their way
    c.answered(1, { kind: 'ACCEPTED', credit: 99 }, T);
    c.answered(1, { kind: 'ACCEPTED', credit: 98 }, T);
    expect(c.balance(1, 4)).toBe(98);
  });

  it('with other engines sending to the same executors, each takes its share of the room, rounded up', () => {
    let engines = 2;
    const c = new ExecutorCredits(() => engines);
    expect(c.balance(1, 4)).toBe(2);
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 101 }, T);
    expect(c.balance(1, 4)).toBe(51);
    engines = 3;
    expect(c.balance(1, 4)).toBe(34);
    c.reported(1, 1, 10, T);
    expect(c.balance(1, 4)).toBe(1); // a last free place is not left unused
    engines = 0; // no peer seen yet: this engine alone
    c.reported(1, 7, 11, T);
    expect(c.balance(1, 4)).toBe(7);
  });

  it('spent: no more sends until an answer or a freed place; then one probe after PROBE_MIN_MS', () => {
    const c = new ExecutorCredits();
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 0 }, T);
    expect(c.maySend(1, 4, T)).toBe(false);
    expect(c.nextProbeAt([1])).toBe(T + PROBE_MIN_MS);
    expect(c.maySend(1, 4, T + PROBE_MIN_MS)).toBe(true); // the probe
    c.sent(1);
    expect(c.maySend(1, 4, T + PROBE_MIN_MS)).toBe(false); // one probe at a time
    expect(c.nextProbeAt([1])).toBe(Infinity); // its answer will come
    c.reported(1, 1, Date.now() * 1000, T + 11); // a run there ended, its callback came here: room for 1
    expect(c.balance(1, 4)).toBe(0); // the place is the probe's
    c.reported(1, 2, Date.now() * 1000 + 1, T + 12);
    expect(c.maySend(1, 4, T + PROBE_MIN_MS)).toBe(true);
  });

  it('keeps the newest figure whatever order they arrive in (creditSeq)', () => {
    const c = new ExecutorCredits();
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 7, creditSeq: 20 }, T);
    c.reported(1, 50, 10, T); // a callback sent before that ack, delivered after it
    expect(c.balance(1, 0)).toBe(7);
    c.reported(1, 9, 21, T);
    expect(c.balance(1, 0)).toBe(9);
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 2, creditSeq: 15 }, T); // an ack overtaken: only its reservation goes
    expect(c.balance(1, 0)).toBe(9);
  });

  it('429s back the probes off, doubling up to PROBE_MAX_MS; only a 202 with room resets that', () => {
    const c = new ExecutorCredits();
    let now = T;
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      c.sent(1);
      c.answered(1, { kind: 'BUSY' }, now);
      const at = c.nextProbeAt([1]);
      waits.push(at - now);
      now = at;
    }
    expect(waits).toEqual(waits.map((_, i) => Math.min(PROBE_MIN_MS * 2 ** i, PROBE_MAX_MS)));
    expect(waits.at(-1)).toBe(PROBE_MAX_MS);
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 0 }, now); // still full: the back-off stays
    expect(c.nextProbeAt([1]) - now).toBe(PROBE_MAX_MS);
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 3 }, now);
    expect(c.nextProbeAt([1]) - now).toBe(PROBE_MIN_MS);
  });

  it('with other engines sharing it, a 202 resets the back-off only when it shows room for each of them', () => {
    const c = new ExecutorCredits(() => 2);
    let now = T;
    for (let i = 0; i < 4; i++) {
      c.sent(1);
      c.answered(1, { kind: 'BUSY' }, now);
      now = c.nextProbeAt([1]);
    }
    const backedOff = 16 * PROBE_MIN_MS; // four 429s: the next wait doubled four times
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 1 }, now); // a last place: the other engine may take it
    expect(c.nextProbeAt([1]) - now).toBe(backedOff);
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 2 }, now);
    expect(c.nextProbeAt([1]) - now).toBe(PROBE_MIN_MS);
  });

  it('an executor that reports no credit (an older one) is never limited', () => {
    const c = new ExecutorCredits();
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED' }, T);
    for (let i = 0; i < 1000; i++) c.sent(1);
    expect(c.balance(1, 0)).toBe(Infinity);
    expect(c.maySend(1, 0, T)).toBe(true);
  });

  it('a first contact is a probe even when the heartbeat showed no room', () => {
    const c = new ExecutorCredits();
    expect(c.maySend(7, 0, T)).toBe(true);
    expect(c.nextProbeAt([7])).toBe(0);
  });

  it('other answers (errors, a request never sent) only give back what was reserved', () => {
    const c = new ExecutorCredits();
    c.sent(1);
    c.answered(1, { kind: 'ACCEPTED', credit: 5 }, T);
    c.sent(1);
    expect(c.balance(1, 0)).toBe(4);
    c.answered(1, { kind: 'OTHER' }, T);
    expect(c.balance(1, 0)).toBe(5);
  });
});
