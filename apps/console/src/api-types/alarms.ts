import type { AlarmType, JsonValue, Severity, WebhookEventType } from '@baton/domain/types';

export interface Alarm {
  id: number;
  uid: string;
  type: AlarmType;
  severity: Severity;
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  message: string;
  data: JsonValue | null;
  count: number;
  raisedAt: number;
  ackedAt: number | null;
  ackedBy: string | null;
}

/** A webhook channel: alarms of its types and lowest severity are POSTed to it, signed. */
export interface Webhook {
  id: number;
  name: string;
  url: string;
  /** Null: every type. */
  alarmTypes: WebhookEventType[] | null;
  minSeverity: Severity;
  createdAt: number;
  pending: number;
  failed: number;
  lastError: string | null;
}

/** A webhook as created: its signing secret, shown this once. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface WebhookTest {
  ok: boolean;
  status: number | null;
  ms: number;
  error: string | null;
}
