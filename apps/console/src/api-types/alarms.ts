import type { Severity, StoredAlarm, WebhookEventType } from '@baton/domain/types';

/** An alarm of the tenant (the domain's StoredAlarm), its stable id always set, and its ack. */
export interface Alarm extends Omit<StoredAlarm, 'tenantId' | 'uid'> {
  uid: string;
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
