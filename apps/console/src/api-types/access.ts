import type { Role } from '@baton/domain/types';

export interface User {
  id: number;
  username: string;
  role: Role;
  tenantId: string | null;
  disabled: boolean;
  createdAt: number;
}

export interface Tenant {
  id: string;
  name: string;
  engineGroup: string;
  ratePerSec: number;
  burst: number;
  /** Its weight when the engines divide the runs they hold among tenants with due work (1 by default). */
  claimShare: number;
  /** Where the tenant's executors may live; null: any URL but link-local and metadata addresses. */
  executorNetworks: string[] | null;
  /** The tenant's BACKLOG_LATE threshold in ms (0: none); null: the engines' BATON_BACKLOG_ALARM_MS. */
  backlogAlarmMs: number | null;
  /** Its users sign in only through single sign-on (password logins refused; API keys work). */
  ssoRequired: boolean;
  createdAt: number;
  /** On create only: shown this once. */
  executorSecret?: string;
  /** Operator's list and get: its `tenant` label on an engine's `/metrics` without BATON_METRICS_TOKEN (with one, the label is its id). */
  metricsLabel?: string;
}

/** A tenant as created, with its first admin when one was asked for. */
export interface CreatedTenant extends Tenant {
  admin?: User;
}

export interface EngineGroup {
  name: string;
  description: string;
  createdAt: number;
  tenants: string[];
  /** Engines serving the group now (UP, a recent heartbeat: ENGINE_SILENT_MS); 0 with tenants bound: their tasks do not fire. */
  liveEngines: number;
}

export interface EngineNode {
  id: string;
  groups: string[];
  host: string;
  pid: number;
  url: string;
  slots: number;
  startedAt: number;
  heartbeatAt: number;
  /** Database − engine clock, ms, at its last heartbeat (it schedules corrected by it; CLOCK_SKEW beyond its bound); null until measured. */
  clockOffsetMs: number | null;
  state: string;
}

export const API_KEY_ROLES = ['TENANT_ADMIN', 'TENANT_VIEWER'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export interface ApiKey {
  id: number;
  tenantId: string;
  name: string;
  prefix: string;
  role: string;
  /** The user who made the key (the key dies with that user's rights); null: made before owners were recorded. */
  ownerUserId: number | null;
  /** That user's name; null when there is no owner or it was deleted. */
  ownerUsername: string | null;
  createdAt: number;
  revokedAt: number | null;
}

/** An API key as created: the clear key, shown this once. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}
