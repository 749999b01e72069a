import type { AlarmBus, BusLogger } from './alarm-bus';
import { InProcessAlarmBus } from './in-process-alarm-bus';
import { StompAlarmBus, type StompAlarmBusOptions } from './stomp/stomp-alarm-bus';

export interface CreateAlarmBusOptions extends Omit<StompAlarmBusOptions, 'url'> {
  /** `BATON_BROKER_URL`; empty or undefined: the in-process bus (embedded mode). */
  brokerUrl?: string | null;
  logger?: BusLogger;
}

/**
 * The bus a process uses: ActiveMQ over STOMP when a broker URL is configured (cluster mode),
 * else the in-process bus (embedded mode, where the engine's relay and the console's gateway
 * share one process — and one bus instance, which the host must hand to both).
 */
export function createAlarmBus(options: CreateAlarmBusOptions): AlarmBus {
  const url = options.brokerUrl?.trim();
  if (url) return new StompAlarmBus({ ...options, url });
  return new InProcessAlarmBus({ topicPrefix: options.topicPrefix, logger: options.logger });
}
