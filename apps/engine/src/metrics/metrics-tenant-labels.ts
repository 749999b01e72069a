import type { DataSource } from 'typeorm';
import type { Clock } from '@baton/domain';
import { metricsTenantLabel, readMetricsLabelKey } from '@baton/persistence';
import type { EngineConfig } from '../config/engine-config';

/** The label of the tenants beyond BATON_LOAD_METRIC_TENANTS: their figures summed. */
export const OTHER_TENANTS = '_other';

/**
 * A tenant's `tenant` label in the engine's metrics: its id when `/metrics` needs a token
 * (BATON_METRICS_TOKEN: whoever scrapes is trusted), else an opaque id keyed with the cluster's
 * secret (metricsTenantLabel), so an open `/metrics` names no tenant and a guessed name cannot be
 * checked against it. Every engine, node and console reads the same secret: a tenant has one
 * label across the cluster, which the operator finds on the operator page.
 */
export class MetricsTenantLabels {
  /** `key` null: labels are tenant ids. */
  constructor(private readonly key: string | null) {}

  label(tenantId: string): string {
    return this.key === null ? tenantId : metricsTenantLabel(this.key, tenantId);
  }
}

/** The engine's labels: by id with a metrics token, else keyed (the secret read, or made, once at start). */
export async function openMetricsTenantLabels(dataSource: DataSource, config: Pick<EngineConfig, 'metricsToken'>, clock: Clock): Promise<MetricsTenantLabels> {
  return new MetricsTenantLabels(config.metricsToken ? null : await readMetricsLabelKey(dataSource.manager, clock.now()));
}
