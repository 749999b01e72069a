/** Lane starts remembered: the lead follows the database's pace within a few fires. */
const SAMPLES = 8;
/** The lead before any lane start was measured (an idle engine's route + mark: a few ms). */
export const INITIAL_LEAD_MS = 10;
/** The longest lead: a run is never marked DISPATCHED more than this before its instant. */
export const MAX_LEAD_MS = 100;

/**
 * How long before its instant the on-time lane starts a run due alone (issue 22 item 3): as long
 * as the lane's recent starts took — route and the DISPATCHED mark's commit, the longest of the
 * last SAMPLES — capped at MAX_LEAD_MS. Measured during a 4,000-run burst, that commit took
 * 20–80 ms (up to 170 ms) against 3–5 ms idle, with connections free in the pool: MariaDB's
 * latency under the burst's writes, the largest share of a lone run's lateness. Started that
 * much ahead, the run's mark is committed by its instant and its POST leaves at the instant.
 */
export class OnTimeLead {
  private readonly samples: number[] = [];

  /** A lane start (launch → DISPATCHED committed) took `ms`. */
  record(ms: number): void {
    this.samples.push(Math.max(0, ms));
    if (this.samples.length > SAMPLES) this.samples.shift();
  }

  get ms(): number {
    if (this.samples.length === 0) return INITIAL_LEAD_MS;
    return Math.min(MAX_LEAD_MS, Math.ceil(Math.max(...this.samples)));
  }
}
