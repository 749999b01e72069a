import type { ExecutorState, ExecutorWire, JsonValue } from '@baton/domain/types';

/**
 * Which executor secret the executor's latest heartbeat was signed with: CURRENT; PREVIOUS (still
 * valid during a rotation's overlap window: restart it with the new secret before it ends);
 * OUTDATED (an expired secret: its heartbeats are refused, it needs the new secret); UNKNOWN
 * (registered before the version was recorded).
 */
export const EXECUTOR_SECRET_STATUSES = ['CURRENT', 'PREVIOUS', 'OUTDATED', 'UNKNOWN'] as const;
export type ExecutorSecretStatus = (typeof EXECUTOR_SECRET_STATUSES)[number];

export interface Executor {
  id: number;
  app: string;
  url: string;
  capacity: number;
  /** The runs its last heartbeat said it holds: running, waiting for a worker, and sent ahead waiting for their instant (`sentAhead` of them). Its load is executorLoad(inFlight, sentAhead). */
  inFlight: number;
  /** Runs the engines sent it ahead of their instant that wait there for it, as the engines count them now: not its load. */
  sentAhead: number;
  state: ExecutorState;
  registeredAt: number;
  heartbeatAt: number;
  /** When it stopped gracefully (DOWN without an alarm); null while it runs, or when it went silent. */
  stoppedAt: number | null;
  /** The handlers its last heartbeat offered. */
  handlers: string[];
  /** JSON schemas of some of those handlers' params, by handler name, as its last heartbeat declared them ({} when none); a viewer's with the values they give secret-named params redacted (redactParamsSchema). */
  handlerSchemas: Record<string, JsonValue>;
  secret: ExecutorSecretStatus;
  /** How the engines speak to it: `baton` (the executor protocol) or `xxl-job` (an xxl-job-core executor; its `secret` does not apply, the tenant's XXL-JOB token does). */
  wire: ExecutorWire;
}

/** GET /executors/connection: what an executor needs besides its secret. */
export interface ExecutorConnection {
  tenantId: string;
  engineGroup: string;
  engineUrls: string[];
  apps: string[];
  secretVersion: number;
  previousSecretExpiresAt: number | null;
}

/** POST /executors/xxl-job-token: the tenant's XXL-JOB access token, shown in this answer only, and where its XXL-JOB executors point. */
export interface XxlJobToken {
  tenantId: string;
  /** xxl.job.accessToken; null: none set (every XXL-JOB request of the tenant is refused). */
  accessToken: string | null;
  /** The tenant's XXL-JOB admin API on every engine: xxl.job.admin.addresses = engine URL + this. */
  adminPath: string;
}

/** The answer to a secret rotation: the only time the new secret is shown. */
export interface RotatedExecutorSecret {
  tenantId: string;
  executorSecret: string;
  secretVersion: number;
  previousSecretExpiresAt: number | null;
}
