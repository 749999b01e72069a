/**
 * @baton/messaging — how alarms travel: the AlarmBus port, its STOMP (ActiveMQ, stompit) and
 * in-process adapters, and the alarm message schema shared by every producer (engine relay,
 * executor SDK) and consumer (console gateway, any STOMP client); and how engines are woken when
 * a run is due before their next poll (RunWakeups). No Nest, no database: the SDK imports it too.
 */
export * from './alarm-message';
export * from './alarm-bus';
export * from './alarm-bus-unavailable-error';
export { InProcessAlarmBus } from './in-process-alarm-bus';
export { StompAlarmBus } from './stomp/stomp-alarm-bus';
export type { StompAlarmBusOptions } from './stomp/stomp-alarm-bus';
export { parseBrokerUrl, describeBroker, DEFAULT_STOMP_PORT } from './stomp/broker-url';
export type { BrokerAddress } from './stomp/broker-url';
export { createAlarmBus } from './create-alarm-bus';
export type { CreateAlarmBusOptions } from './create-alarm-bus';
export { RecentIds } from './recent-ids';
export { signWebhook, webhookHeaders, WEBHOOK_HEADERS } from './webhook-signature';
export { InProcessWakeups } from './run-wakeups';
export type { DirectStarts, RunCancels, RunWakeup, RunWakeups, StartPlan, StartRequest } from './run-wakeups';
