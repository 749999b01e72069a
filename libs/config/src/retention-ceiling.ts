import type { ProcessConfig } from './process-config';

/**
 * The cluster's retention ceilings, read the same way by the console (which refuses a tenant
 * policy above them) and the engines (which never keep less than a policy says, nor more than
 * these): structurally libs/domain's RetentionCeiling.
 */
export function retentionCeiling(values: ProcessConfig): { runsMs: number; logsMs: number; alarmsMs: number; minRunsKept: number } {
  return {
    runsMs: values.integer('BATON_RUN_RETENTION_MS'),
    logsMs: values.integer('BATON_LOG_RETENTION_MS'),
    alarmsMs: values.integer('BATON_ALARM_RETENTION_MS'),
    minRunsKept: values.integer('BATON_MAX_RUNS_KEPT'),
  };
}
