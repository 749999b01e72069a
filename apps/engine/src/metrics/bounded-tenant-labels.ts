import { OTHER_TENANTS, type MetricsTenantLabels } from './metrics-tenant-labels';

/**
 * `tenant` labels of a per-tenant counter, bounded as the load gauges are (BATON_LOAD_METRIC_TENANTS):
 * the first `max` tenants counted get a label of their own, later ones `_other`. A counter's
 * series live as long as the process, so labelling every tenant that ever counted (as
 * baton_engine_retries_paced_total did) grew the scrape with each one, past the bound OPERATIONS
 * states; the gauges' choice (the oldest due runs, re-sampled) would make a counter's series jump.
 */
export class BoundedTenantLabels {
  private readonly labelled = new Map<string, string>();

  constructor(
    private readonly max: number,
    private readonly labels: MetricsTenantLabels,
  ) {}

  label(tenantId: string): string {
    const known = this.labelled.get(tenantId);
    if (known !== undefined) return known;
    if (this.labelled.size >= this.max) return OTHER_TENANTS;
    const label = this.labels.label(tenantId);
    this.labelled.set(tenantId, label);
    return label;
  }
}
