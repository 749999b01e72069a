import { stats, type StageStats } from '../../scenarios/burst';

/** One handler start, as every system's workers record it: job (or run) key, worker pid, Date.now() at the start. */
export interface HandlerStart {
  k: string;
  pid: number;
  at: number;
}

/** What the peers table shows of a burst due at `due`, from the handler starts of its `keys`. */
export interface StartFigures {
  /** First handler start − T, ms, over the jobs that started. */
  lateness: StageStats;
  /** T → the last job's first start, ms. */
  lastStartMs: number;
  /** Jobs per second to the last first start. */
  ratePerSec: number;
  /** Jobs whose handler started more than once. */
  duplicated: number;
  /** Jobs whose handler never started. */
  neverStarted: number;
}

export function startFigures(starts: readonly HandlerStart[], keys: readonly string[], due: number): StartFigures {
  const byKey = startsByKey(starts);
  const firsts: number[] = [];
  let duplicated = 0;
  for (const k of keys) {
    const list = byKey.get(k);
    if (!list) continue;
    firsts.push(list[0].at - due);
    if (list.length > 1) duplicated++;
  }
  const lastStartMs = firsts.length ? Math.max(...firsts) : NaN;
  return {
    lateness: stats(firsts),
    lastStartMs,
    ratePerSec: Math.round((firsts.length * 1000) / Math.max(1, lastStartMs)),
    duplicated,
    neverStarted: keys.length - firsts.length,
  };
}

/**
 * After a worker was killed at `killedAt` holding the jobs `held`: when the last of them started on
 * another worker (ms after the kill), or null when one never did.
 */
export function takeover(starts: readonly HandlerStart[], victimPid: number, killedAt: number, held: readonly string[]): { held: number; takeoverMs: number | null } {
  const byKey = startsByKey(starts);
  let last = 0;
  for (const k of held) {
    const again = (byKey.get(k) ?? []).find((s) => s.pid !== victimPid && s.at > killedAt);
    if (!again) return { held: held.length, takeoverMs: null };
    last = Math.max(last, again.at - killedAt);
  }
  return { held: held.length, takeoverMs: held.length ? last : null };
}

/** The worker that started the most of `keys` so far (the "busiest", the one a kill case kills). */
export function busiest(starts: readonly HandlerStart[], keys: ReadonlySet<string>): number | null {
  const perPid = new Map<number, number>();
  for (const s of starts) if (keys.has(s.k)) perPid.set(s.pid, (perPid.get(s.pid) ?? 0) + 1);
  const ranked = [...perPid.entries()].sort((a, b) => b[1] - a[1]);
  return ranked[0]?.[0] ?? null;
}

function startsByKey(starts: readonly HandlerStart[]): Map<string, HandlerStart[]> {
  const byKey = new Map<string, HandlerStart[]>();
  for (const s of [...starts].sort((a, b) => a.at - b.at)) byKey.set(s.k, [...(byKey.get(s.k) ?? []), s]);
  return byKey;
}
