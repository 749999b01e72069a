import type { FieldError } from '../../../../libs/protocol/src/error-body';
import type { AlarmType, ConcurrencyPolicy, FanOutFailWhen, FanOutMode, JsonValue, MisfirePolicy, RunState, TriggerKind } from '../../../../libs/domain/src/types';

/** A trigger as the API writes it: one object whose kind says which of the other fields it has. */
export interface TaskTrigger {
  kind: TriggerKind;
  intervalMs?: number;
  delayMs?: number;
  expression?: string;
  timeZone?: string;
  at?: number;
}

export interface Task {
  id: number;
  name: string;
  group: string;
  executorApp: string;
  handler: string;
  params: JsonValue;
  trigger: TaskTrigger;
  startAt: number | null;
  endAt: number | null;
  maxFires: number | null;
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  priority: number;
  concurrencyPolicy: ConcurrencyPolicy;
  timeoutMs: number;
  startDeadlineMs: number;
  retry: { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number; jitter: number };
  calendarName: string | null;
  alarms: { types: AlarmType[]; silenceMs: number };
  paused: boolean;
  pauseAfterFailures: number | null;
  fanOut: { mode: FanOutMode; shards: number | null; failWhen: FanOutFailWhen };
  fireCount: number;
  nextFireAt: number | null;
  createdAt: number;
  updatedAt: number;
  version: number;
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
}
