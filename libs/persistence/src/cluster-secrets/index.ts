export { readClusterSecret } from './read-cluster-secret';
export { METRICS_LABEL_SECRET, metricsTenantLabel, readMetricsLabelKey } from './metrics-tenant-label';
