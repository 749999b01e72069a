import { createHash } from 'node:crypto';

/** The label of the tenants beyond BATON_LOAD_METRIC_TENANTS: their figures summed. */
export const OTHER_TENANTS = '_other';

/**
 * A tenant's `tenant` label in the engine's metrics: its id when `/metrics` needs a token
 * (BATON_METRICS_TOKEN: whoever scrapes is trusted), else an opaque id — `t_` and 12 hex digits of
 * the id's SHA-256 — so an open `/metrics` names no tenant. The operator finds a tenant's series
 * with `echo -n <tenant> | sha256sum`.
 */
export function metricsTenantLabel(tenantId: string, metricsToken: string | null): string {
  return metricsToken ? tenantId : `t_${createHash('sha256').update(tenantId).digest('hex').slice(0, 12)}`;
}
