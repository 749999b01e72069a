import { stats, type StageStats } from '../../scenarios/burst';
import type { StartBook, StepRun } from './open-loop';
import { topStatements, type SqlTiming } from '../sql-timing';
import { UNANSWERED } from './target';

/** What the on-demand table shows of one step of one system. */
export interface StepFigures {
  system: string;
  series: 'single' | 'batched' | 'client' | 'events' | 'events-batched' | 'events-client';
  batch: number;
  offeredPerSec: number;
  seconds: number;
  submitted: number;
  /** Why sending stopped early (saturation), or null. */
  stoppedEarly: string | null;
  /** Handler starts of the step's submissions per second: started ÷ (first send → last start). */
  startsPerSec: number;
  /** Submission (the client's clock before sending) → first handler start, over those started before the drain ended. */
  start: StageStats;
  /** Submission → its answer (Baton: the HTTP answer; peers: the add promise), over those answered. */
  answer: StageStats;
  /** Not taken: a non-2xx answer or a client error. */
  refused: number;
  /** No answer by the end of the drain. */
  unanswered: number;
  /** Accepted and not started by the end of the drain. */
  lost: number;
  /** Of `lost`, those that never started, also after the system's last step settled. */
  neverStarted: number;
  /** Submissions whose handler started more than once. */
  duplicated: number;
  /** The load generator's worst delay behind its schedule, ms. */
  clientLagMs: number;
  /** CPU seconds per process over the step (first send → end of the drain), less each process's idle rate over as long. */
  cpuSec: Record<string, number>;
  /** `cpuSec` per 1,000 handler starts of the step (s; numerically ms per run). */
  cpuPer1000Runs: Record<string, number>;
  /** Per process, the times it went to sleep over the step (each a wake-up: bench/support/infra.ts treeSleeps) per handler start, less its idle rate. */
  sleepsPerRun: Record<string, number>;
  /** Refusals by reason (the first 80 characters of the answer or error). */
  refusals: Record<string, number>;
  /** The store's statements per handler start over the step (Baton: MariaDB's counters); null when the system gives none. */
  storePerRun: Record<string, number> | null;
  /** `--sql-timing`: per process, its statements and their round trips per run started, and the digests that cost most. */
  sqlPerRun: Record<string, SqlPerRun> | null;
  /** Where the time went inside the system, per stage (OnDemandTarget.stages); empty when it cannot say. */
  stages: Record<string, StageStats>;
  windowMs: number;
}

/** What the system's processes use a second when nothing is sent: CPU seconds, and times gone to sleep. */
export interface IdleRates {
  cpuPerSec: Record<string, number>;
  sleepsPerSec: Record<string, number>;
}

export function stepFigures(system: string, run: StepRun, book: StartBook, idle: IdleRates, stages: Record<string, number[]> = {}): StepFigures {
  const { spec, sends } = run;
  const starts: number[] = [];
  const answers: number[] = [];
  let refused = 0;
  const refusals: Record<string, number> = {};
  let unanswered = 0;
  let lost = 0;
  let neverStarted = 0;
  let duplicated = 0;
  let lastStart = -Infinity;
  for (const s of sends) {
    const first = book.first(s.item.key);
    const inTime = first !== undefined && first <= run.drainEndAt;
    if (inTime) {
      starts.push(first - s.sentAt);
      lastStart = Math.max(lastStart, first);
    }
    if (book.starts(s.item.key) > 1) duplicated++;
    if (s.outcome?.error === UNANSWERED) unanswered++;
    else if (s.answeredAt !== null) answers.push(s.answeredAt - s.sentAt);
    if (s.outcome && !s.outcome.ok && s.outcome.error !== UNANSWERED) {
      refused++;
      const why = (s.outcome.error ?? '?').slice(0, 80);
      refusals[why] = (refusals[why] ?? 0) + 1;
    }
    if (s.outcome?.ok && !inTime) {
      lost++;
      if (first === undefined) neverStarted++;
    }
  }
  const firstSend = sends.length ? sends[0].sentAt : 0;
  const cpuSec = Object.fromEntries(Object.entries(run.cpuSec).map(([k, v]) => [k, +(v - (idle.cpuPerSec[k] ?? 0) * (run.windowMs / 1000)).toFixed(3)]));
  const sleeps = Object.fromEntries(Object.entries(run.sleeps).map(([k, v]) => [k, v - (idle.sleepsPerSec[k] ?? 0) * (run.windowMs / 1000)]));
  return {
    system,
    series: spec.viaClient ? (spec.viaEvents ? 'events-client' : 'client') : spec.viaEvents ? (spec.batch > 1 ? 'events-batched' : 'events') : spec.batch > 1 ? 'batched' : 'single',
    batch: spec.batch,
    offeredPerSec: spec.rate,
    seconds: spec.seconds,
    submitted: sends.length,
    stoppedEarly: run.stoppedEarly,
    startsPerSec: starts.length ? Math.round((starts.length * 1000) / Math.max(1, lastStart - firstSend)) : 0,
    start: stats(starts),
    answer: stats(answers),
    refused,
    unanswered,
    lost,
    neverStarted,
    duplicated,
    clientLagMs: run.clientLagMs,
    cpuSec,
    cpuPer1000Runs: Object.fromEntries(Object.entries(cpuSec).map(([k, v]) => [k, starts.length ? +((v * 1000) / starts.length).toFixed(2) : NaN])),
    sleepsPerRun: Object.fromEntries(Object.entries(sleeps).map(([k, v]) => [k, starts.length ? +(v / starts.length).toFixed(1) : NaN])),
    refusals,
    storePerRun: run.storeCounters && starts.length ? Object.fromEntries(Object.entries(run.storeCounters).map(([k, v]) => [k, +(v / starts.length).toFixed(2)])) : null,
    stages: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, stats(v)])),
    sqlPerRun: run.sqlTiming && starts.length ? Object.fromEntries(Object.entries(run.sqlTiming).map(([name, timing]) => [name, sqlPerRun(timing, starts.length)])) : null,
    windowMs: run.windowMs,
  };
}

/** The knee bound: p99 submission → start at most this (ms), with nothing refused, unanswered or lost. */
export const KNEE_P99_MS = 100;

/** The highest offered rate of a series that kept p99 ≤ KNEE_P99_MS with nothing lost, refused or unanswered; null when none did. */
export function knee(steps: readonly StepFigures[]): number | null {
  const ok = steps.filter((s) => !s.stoppedEarly && s.start.p99 <= KNEE_P99_MS && s.lost === 0 && s.refused === 0 && s.unanswered === 0 && s.start.n === s.submitted);
  return ok.length ? Math.max(...ok.map((s) => s.offeredPerSec)) : null;
}

/** One process's SQL over a step, per run started. */
export interface SqlPerRun {
  statements: number;
  /** Round trips summed (sent → answer, as the process waits: lock waits and commits included), ms. */
  ms: number;
  top: Array<{ sql: string; perRun: number; meanMs: number }>;
}

function sqlPerRun(timing: SqlTiming, runs: number): SqlPerRun {
  const all = Object.values(timing);
  return {
    statements: +(all.reduce((a, [n]) => a + n, 0) / runs).toFixed(2),
    ms: +(all.reduce((a, [, ms]) => a + ms, 0) / runs).toFixed(2),
    top: topStatements(timing, 24).map((s) => ({ sql: s.sql, perRun: +(s.count / runs).toFixed(2), meanMs: +(s.ms / s.count).toFixed(2) })),
  };
}
