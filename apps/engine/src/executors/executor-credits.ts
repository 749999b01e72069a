/**
 * After a 429 or a 0 credit, the first probe of an executor waits this long; each further 429
 * doubles it up to PROBE_MAX_MS, until an answer shows room again.
 */
export const PROBE_MIN_MS = 50;
export const PROBE_MAX_MS = 1_000;

interface Account {
  /** Room the executor last reported (its last 202's `credit`, 0 after a 429); null: nothing reported yet. */
  reported: number | null;
  /** This engine's requests to it not answered yet (sent after the report, so not counted in it). */
  pending: number;
  /** creditSeq of `reported`: an older figure (a callback sent late, an ack overtaken) is ignored. */
  seq: number;
  /** When a probe may go while the credit is spent (a run sent to learn the room anew). */
  probeAt: number;
  probeBackoffMs: number;
  /** False once the executor answered a 202 without `credit` (an older executor): never limited. */
  limited: boolean;
}

/** What an executor answered to one dispatch, as far as its credit goes. */
export type CreditAnswer = { kind: 'ACCEPTED'; credit?: number; creditSeq?: number } | { kind: 'BUSY' } | { kind: 'OTHER' };

/**
 * Credit-based flow control, one engine's side: how many more runs each executor will take.
 *
 * The executor's own figure is the truth: every 202 carries `credit` (free workers plus free
 * queue places after that run), and so does every outcome callback (the room once that run's
 * place is free), each numbered (`creditSeq`) so that the newest wins whatever order they
 * arrive in. The other engines of the cluster send to the same executor without telling this
 * one, so each engine takes its share of the figure — credit ÷ the live engines of its groups
 * (`sharers`), rounded up so a last free place is never left unused — minus what it has sent
 * and not heard back about (`pending`), and sends while that is positive. Shared in full, the
 * same room was spent by every engine at once: 2 engines on executors of 4 workers and 100
 * queued) still drew 133 `429`s in a 4,000-run burst. The split costs little when a peer is
 * idle: the room it leaves shows in every answer, and each round trip takes half of what is left.
 *
 * Before the first answer the heartbeat's figure stands in (capacity + queue limit − in flight):
 * a burst starts with sends, not with a round trip's wait. When the balance is spent, a
 * probe — one ordinary dispatch — may go every PROBE_MIN_MS..PROBE_MAX_MS (backing off on 429s,
 * back to PROBE_MIN_MS when a 202 shows room for every sharing engine), so room freed by runs
 * that called back to another engine is found without a heartbeat.
 */
export class ExecutorCredits {
  private readonly accounts = new Map<number, Account>();

  /** `sharers`: how many engines send to the same executors, this one included (default 1). */
  constructor(private readonly sharers: () => number = () => 1) {}

  /** Runs this engine may send to the executor now (Infinity: not limited), `heartbeatRoom` standing in before its first answer. */
  balance(executorId: number, heartbeatRoom: number): number {
    const a = this.accounts.get(executorId);
    if (a && !a.limited) return Infinity;
    const room = a?.reported ?? Math.max(0, heartbeatRoom);
    return Math.ceil(room / Math.max(1, this.sharers())) - (a?.pending ?? 0);
  }

  /**
   * Whether a run may go to the executor at `now`: a balance above `kept` (this engine's part of
   * the places kept for runs due now — `kept(…)` for a run sent ahead, 0 for a run due now), or a
   * probe due while the balance is spent (a first contact is one). A run sent ahead never probes
   * for a place known to be kept: the executor would take it, and a run due now find none.
   */
  maySend(executorId: number, heartbeatRoom: number, now: number, kept = 0): boolean {
    const balance = this.balance(executorId, heartbeatRoom);
    if (balance > kept) return true;
    if (balance > 0) return false;
    const a = this.accounts.get(executorId);
    return a === undefined || (a.pending === 0 && now >= a.probeAt);
  }

  /**
   * This engine's part of the places a run sent ahead leaves free on an executor of `workers`
   * workers and `queueLimit` queue places, for runs due now: its workers' worth (a run due now
   * starts at once on a free worker, while a run sent ahead holds a place until its instant),
   * at most half of its places (an executor with few queue places still takes runs ahead), split
   * between the sharing engines as the room is. An executor filled with runs sent ahead kept a
   * manual trigger waiting for a probe's turn (up to PROBE_MAX_MS) or the burst's first outcomes
   * (issue 44).
   */
  kept(workers: number, queueLimit: number): number {
    return Math.ceil(Math.min(workers, Math.floor((workers + queueLimit) / 2)) / Math.max(1, this.sharers()));
  }

  /** The earliest instant a probe could go to any of `executorIds` (Infinity when every one has an answer coming). */
  nextProbeAt(executorIds: Iterable<number>): number {
    let at = Infinity;
    for (const id of executorIds) {
      const a = this.accounts.get(id);
      if (!a) return 0;
      if (a.pending === 0) at = Math.min(at, a.probeAt);
    }
    return at;
  }

  /** A request is leaving for the executor. */
  sent(executorId: number): void {
    this.account(executorId).pending++;
  }

  /** Its answer came (or none will: OTHER). */
  answered(executorId: number, answer: CreditAnswer, now: number): void {
    const a = this.account(executorId);
    a.pending = Math.max(0, a.pending - 1);
    if (answer.kind === 'ACCEPTED') {
      if (answer.credit === undefined) a.limited = false;
      // Room for every engine sharing it: no longer full, probes may go soon again. A last place
      // or two under several engines is not that: each would probe for it and all but one be
      // refused (a full executor of 2 engines drew a 429 per run it took: issue 20's bench).
      else if (this.report(a, answer.credit, answer.creditSeq ?? a.seq + 1, now) && answer.credit >= Math.max(1, this.sharers())) this.resetProbes(a, now);
    } else if (answer.kind === 'BUSY') {
      // The newest truth there is: full now, whatever older figures said.
      a.reported = 0;
      a.probeAt = now + a.probeBackoffMs;
      a.probeBackoffMs = Math.min(PROBE_MAX_MS, a.probeBackoffMs * 2);
    }
  }

  /**
   * The room an outcome callback reported (its run's place counted free). It postpones the next
   * probe — room is being reported without one — but does not reset their back-off: under a
   * steady load each freed place is taken at once, and only a 202 with room left says the
   * executor is no longer full.
   */
  reported(executorId: number, credit: number, creditSeq: number, now: number): void {
    this.report(this.account(executorId), credit, creditSeq, now);
  }

  /** Keeps the figure if it is the newest; true when kept. */
  private report(a: Account, credit: number, seq: number, now: number): boolean {
    if (seq <= a.seq) return false;
    a.seq = seq;
    a.reported = credit;
    a.probeAt = now + a.probeBackoffMs;
    return true;
  }

  private resetProbes(a: Account, now: number): void {
    a.probeBackoffMs = PROBE_MIN_MS;
    a.probeAt = now + PROBE_MIN_MS;
  }

  private account(executorId: number): Account {
    let a = this.accounts.get(executorId);
    if (!a) {
      a = { reported: null, pending: 0, seq: 0, probeAt: 0, probeBackoffMs: PROBE_MIN_MS, limited: true };
      this.accounts.set(executorId, a);
    }
    return a;
  }
}
