/** One field that differs between two versions of a task. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** A version of a task (GET /api/tasks/{id}/versions): what it saved, what it changed, when it would fire. */
export interface TaskVersion {
  version: number;
  at: number;
  actor: string | null;
  definition: Record<string, unknown>;
  changes: FieldChange[];
  nextFireTimes: number[];
  current: boolean;
}
