import type { RunState } from '@baton/domain/types';

export interface Distribution {
  count: number;
  p50: number | null;
  p95: number | null;
}

export interface Stats {
  taskId: number | null;
  windowMs: number;
  from: number;
  to: number;
  total: number;
  counts: Record<RunState, number>;
  successRate: number | null;
  /** Ended runs whose last attempt started more than 20 ms before its instant (a defect). */
  earlyStarts: number;
  durationMs: Distribution;
  latenessMs: Distribution;
  retryWaitMs: Distribution;
  percentileError: number;
  sampled: boolean;
}

export interface SeriesBucket {
  t: number;
  counts: Partial<Record<RunState, number>>;
  successRate: number | null;
  durationP50: number | null;
  durationP95: number | null;
  latenessP50: number | null;
  latenessP95: number | null;
  /** Runs of the bucket whose last attempt started more than 20 ms before its instant. */
  earlyStarts: number;
}

export interface StatsSeries {
  taskId: number | null;
  from: number;
  to: number;
  bucketMs: number;
  buckets: SeriesBucket[];
  sampled: boolean;
}
