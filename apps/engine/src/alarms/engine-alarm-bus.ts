import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { redactUrlPasswords } from '@baton/domain';
import { createAlarmBus, type AlarmBus, type BusLogger } from '@baton/messaging';
import type { EngineConfig } from '../config/engine-config';

/** Injection token of the engine's AlarmBus (what the outbox relay publishes to). */
export const ENGINE_ALARM_BUS = Symbol('baton.engine.alarm-bus');

/** Whether the engine made its bus itself (then it closes it) or was given one by its host. */
export const ENGINE_ALARM_BUS_OWNED = Symbol('baton.engine.alarm-bus-owned');

/** A Nest logger as the bus's logger. */
export function busLogger(context: string): BusLogger {
  const logger = new Logger(context);
  return { info: (m) => logger.log(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) };
}

/**
 * The bus of a node: the host's (embedded mode hands the same in-process bus to engine and
 * console), else STOMP to config.brokerUrl, else in-process.
 */
export function engineAlarmBus(config: EngineConfig, given?: AlarmBus): AlarmBus {
  if (given) return given;
  const bus = createAlarmBus({ brokerUrl: config.brokerUrl, topicPrefix: config.alarmTopicPrefix, logger: busLogger('AlarmBus') });
  const logger = new Logger('AlarmBus');
  if (config.brokerUrl) logger.log(`alarms go to ActiveMQ ${redactUrlPasswords(config.brokerUrl)}, topics ${config.alarmTopicPrefix}<tenant>`);
  else if (config.databaseUrl.startsWith('mysql')) {
    // A standalone engine of a cluster without a broker: no console process can hear it.
    logger.warn('BATON_BROKER_URL is not set: alarms are recorded (console history) but no console receives them live');
  }
  return bus;
}

/** Closes the bus the engine made, after everything else has stopped (the relay first). */
@Injectable()
export class EngineAlarmBusCloser implements OnApplicationShutdown {
  constructor(
    @Inject(ENGINE_ALARM_BUS) private readonly bus: AlarmBus,
    @Inject(ENGINE_ALARM_BUS_OWNED) private readonly owned: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owned) await this.bus.close();
  }
}
