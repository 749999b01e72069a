/** An exclusion calendar: local dates (YYYY-MM-DD, in its zone) on which the tasks naming it do not fire. */
export interface Calendar {
  id: number;
  name: string;
  timeZone: string;
  dates: string[];
  createdAt: number;
  /** Tasks using the calendar. */
  taskCount?: number;
}

/** Retention figures in force, ms (minRunsKept: newest runs of each task kept whatever their age; 0: none). */
export interface RetentionValues {
  runsMs: number;
  logsMs: number;
  alarmsMs: number;
  minRunsKept: number;
}

/** A tenant's stored policy: null fields take the cluster's ceiling. */
export interface StoredRetention {
  runsMs: number | null;
  logsMs: number | null;
  alarmsMs: number | null;
  minRunsKept: number | null;
}

export interface TaskRetention {
  taskId: number;
  runsMs: number | null;
  minRunsKept: number | null;
  /** What the engines apply to this task. */
  effective: RetentionValues;
}

/** GET /api/retention: the ceiling, the tenant's policy, what applies, and the tasks' overrides. */
export interface Retention {
  ceiling: RetentionValues;
  tenant: StoredRetention;
  effective: RetentionValues;
  tasks: TaskRetention[];
}
