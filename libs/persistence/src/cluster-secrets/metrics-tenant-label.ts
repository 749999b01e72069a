import { createHmac } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { readClusterSecret } from './read-cluster-secret';

/** The cluster secret that keys the opaque tenant labels of an open `/metrics`. */
export const METRICS_LABEL_SECRET = 'metrics-tenant-label';

/**
 * A tenant's opaque `tenant` label on an engine's `/metrics` when it needs no token: `t_` and 12
 * hex digits of HMAC-SHA256(key, tenant id). Keyed with the cluster's secret (readMetricsLabelKey),
 * so every process gives a tenant the same label (Prometheus sums and compares across them) and
 * the operator maps labels back (GET /api/operator/tenants: `metricsLabel`), while whoever reaches
 * `/metrics` cannot confirm a guessed tenant name by hashing it, as with a plain SHA-256 of the id.
 */
export function metricsTenantLabel(key: string, tenantId: string): string {
  return `t_${createHmac('sha256', key).update(tenantId).digest('hex').slice(0, 12)}`;
}

/** The key of metricsTenantLabel: the cluster's `metrics-tenant-label` secret, made on first use. */
export function readMetricsLabelKey(manager: EntityManager, now: number): Promise<string> {
  return readClusterSecret(manager, METRICS_LABEL_SECRET, now);
}
