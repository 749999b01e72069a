import { describe, expect, it } from 'vitest';
import { ManualClock } from '@baton/domain';
import { readEngineConfig } from '../config/engine-config';
import { NodeLiveness, RECORDING_BREAK_PERIODS } from './node-liveness';

describe('NodeLiveness: since when the node records', () => {
  const T = 1_800_000_000_000;
  const HEARTBEAT = 2_000;
  const make = () => {
    const clock = new ManualClock(T);
    const liveness = new NodeLiveness(readEngineConfig({}, { heartbeatMs: HEARTBEAT, engineDeadAfterMs: 8_000 }), clock);
    /** Heartbeats written every period from `from` to `to` (the clock ends at `to`). */
    const beats = (from: number, to: number) => {
      for (let at = from; at <= to; at += HEARTBEAT) {
        clock.set(at);
        liveness.proven(at);
      }
    };
    return { clock, liveness, beats };
  };

  it('knows nothing before it registered; records from its registration while its heartbeats keep their period', () => {
    const { liveness, beats } = make();
    expect(liveness.recordingSince()).toBeNull();
    beats(T, T + 60_000);
    expect(liveness.recordingSince()).toBe(T);
  });

  it('a break in its heartbeats (its database down, its process frozen) starts again from the first heartbeat after it', () => {
    const { clock, liveness, beats } = make();
    beats(T, T + 10_000);
    // The database is down for 20 s: no heartbeat is written. Meanwhile the node is not proven to record.
    clock.set(T + 10_000 + RECORDING_BREAK_PERIODS * HEARTBEAT);
    expect(liveness.recordingSince()).toBe(T); // one late heartbeat is no break yet
    clock.set(T + 10_000 + RECORDING_BREAK_PERIODS * HEARTBEAT + 1);
    expect(liveness.recordingSince()).toBe(clock.now());
    clock.set(T + 25_000);
    expect(liveness.recordingSince()).toBe(T + 25_000);
    // Back: it records from its first heartbeat after the outage.
    beats(T + 30_000, T + 60_000);
    expect(liveness.recordingSince()).toBe(T + 30_000);
  });
});
