import type { RunState } from '@baton/domain/types';
import type { LoadCount } from './load';

/** A tenant's home dashboard (GET /api/dashboard; an operator's GET /api/operator/tenants/{id}/dashboard). */
export interface Dashboard {
  tenantId: string;
  /** The instant the figures are of (epoch ms). */
  at: number;
  /** The window of the run figures: the last hour. */
  windowMs: number;
  /** Runs that ended in the last hour by their end state, and the runs going on now by state. */
  runs: Record<RunState, number>;
  /** SUCCEEDED / (SUCCEEDED + FAILED + TIMED_OUT) of the last hour; null with none ended. */
  successRate: number | null;
  /** p95 of the first attempts' lateness in the last hour (ms, an upper bound); null with none. */
  latenessP95Ms: number | null;
  /** Runs ended in the last hour whose last attempt started more than 20 ms before its instant (a defect). */
  earlyStarts: number;
  openAlarms: LoadCount;
  executorsUp: number;
  /** inFlight: at executors, their instant come; sentAhead: sent ahead of their instant, waiting for it there (TenantLoad). */
  backlog: { due: LoadCount; held: LoadCount; inFlight: LoadCount; sentAhead: LoadCount; oldestDueAgeMs: number | null };
}
