import type { FieldError } from '@baton/protocol/error-body';
import type { DstMark, EventFilter, EventProjection, RepeatedTimePolicy, RunState, SkippedTimePolicy, TaskDefinition, TriggerKind } from '@baton/domain/types';

/** A trigger as the API writes it: one object whose kind says which of the other fields it has. */
export interface TaskTrigger {
  kind: TriggerKind;
  intervalMs?: number;
  delayMs?: number;
  expression?: string;
  timeZone?: string;
  repeatedTime?: RepeatedTimePolicy;
  skippedTime?: SkippedTimePolicy;
  at?: number;
  event?: string;
  filter?: EventFilter;
  params?: EventProjection | null;
}

/** A task as the API shows it: its definition (the domain's, with the trigger as one object) and what the planner keeps of it. */
export interface Task extends Omit<TaskDefinition, 'tenantId' | 'trigger'> {
  id: number;
  trigger: TaskTrigger;
  fireCount: number;
  nextFireAt: number | null;
  createdAt: number;
  updatedAt: number;
  version: number;
  /** Applied from a tasks-as-code file: edit the file rather than the task. */
  managed: boolean;
  /** A managed task changed since its file was last applied. */
  drifted: boolean;
}

/** A task as saved (POST/PUT/PATCH): warnings say it would not run as things stand (no live executor offers its handler). */
export interface SavedTask extends Task {
  warnings: FieldError[];
}

export interface LastRun {
  id: number;
  state: RunState;
  scheduledAt: number;
  finishedAt: number | null;
  error: string | null;
}

/** A task's newest run that left PENDING/CLAIMED, and its newest finished one (GET /api/ui/task-summaries). */
export interface TaskSummary {
  taskId: number;
  lastRun: LastRun | null;
  lastResult: LastRun | null;
}

export interface CronPreview {
  expression: string;
  timeZone: string;
  next: number[];
  nextIso: string[];
  /** For each fire time, what daylight saving did to it (DstMark), or null. */
  dst: (DstMark | null)[];
}
