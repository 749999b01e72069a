import { sleep, waitFor } from '../../test/cluster/support/cluster';
import { percentile } from '../../test/cluster/support/figures';

/** One series' trigger → handler start lateness (ms). */
export interface ProbeFigures {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** A series of probe runs: `trigger(n)` submits the n-th through the public API and gives its run id. */
export interface ProbeSeries<S extends string> {
  name: S;
  trigger: (n: number) => Promise<number>;
}

/**
 * Lateness probes of the isolation benchmarks (flooded-key, failing-storm): `rate` triggers a
 * second of each series, side by side, for `seconds`, open loop; each run's lateness is its
 * handler's start as its executor recorded it (`starts`: run id → start, epoch ms) − when its
 * trigger was sent. Waits until every probe run has started.
 */
export class TriggerProbe<S extends string> {
  private sentSoFar = 0;

  constructor(
    private readonly series: ReadonlyArray<ProbeSeries<S>>,
    private readonly starts: () => Map<number, number>,
  ) {}

  /** Each series' figures; the span from the first trigger to the last start; the probe runs, all and by series. */
  async run(rate: number, seconds: number): Promise<{ figures: Record<S, ProbeFigures>; from: number; to: number; runIds: Set<number>; bySeries: Record<S, number[]> }> {
    const sent = new Map<number, { at: number; series: S }>();
    const sends: Array<Promise<void>> = [];
    const t0 = Date.now();
    for (let i = 0; i < rate * seconds; i++) {
      await sleep(t0 + (i * 1000) / rate - Date.now());
      const n = this.sentSoFar++;
      for (const { name, trigger } of this.series) {
        const at = Date.now();
        sends.push(trigger(n).then((id) => void sent.set(id, { at, series: name })));
      }
    }
    await Promise.all(sends);
    const started = await waitFor(
      () => {
        const all = this.starts();
        const mine = new Map([...sent.keys()].flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : [])));
        return mine.size === sent.size ? mine : false;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: `the ${sent.size} probe runs started` },
    );
    const figures = Object.fromEntries(
      this.series.map(({ name }) => {
        const ms = [...sent].filter(([, s]) => s.series === name).map(([id, s]) => started.get(id)! - s.at);
        return [name, { n: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99), max: Math.max(...ms) }];
      }),
    ) as Record<S, ProbeFigures>;
    const bySeries = Object.fromEntries(this.series.map(({ name }) => [name, [...sent].filter(([, s]) => s.series === name).map(([id]) => id)])) as Record<S, number[]>;
    return { figures, from: t0, to: Math.max(...started.values()), runIds: new Set(sent.keys()), bySeries };
  }
}
