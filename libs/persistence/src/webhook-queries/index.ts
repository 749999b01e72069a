export { queueWebhookDeliveries } from './queue-webhook-deliveries';
export { claimWebhookDeliveries, recordWebhookTry } from './claim-webhook-deliveries';
export type { DueDelivery } from './claim-webhook-deliveries';
export { findAlarmsForWebhooks } from './alarm-for-webhook';
export { findAuditRecordsForWebhooks } from './audit-for-webhook';
export { queueAuditWebhookDeliveries } from './queue-audit-webhook-deliveries';
export { purgeWebhookDeliveries } from './purge-webhook-deliveries';
export { takesAuditWebhooks } from './takes-audit-webhooks';
