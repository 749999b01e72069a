import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { redactUrlPasswords } from '@baton/domain';
import { createAlarmBus, type AlarmBus } from '@baton/messaging';
import type { ConsoleModuleOptions } from '../common/options';

/** Injection token of the console's AlarmBus (what the gateway subscribes to). */
export const CONSOLE_ALARM_BUS = Symbol('baton.console.alarm-bus');

/** Whether the console made its bus (then it closes it) or was given one by its host. */
export const CONSOLE_ALARM_BUS_OWNED = Symbol('baton.console.alarm-bus-owned');

/** The host's bus, else STOMP to options.brokerUrl, else in-process. */
export function consoleAlarmBus(options: ConsoleModuleOptions): AlarmBus {
  if (options.alarmBus) return options.alarmBus;
  const logger = new Logger('AlarmBus');
  const bus = createAlarmBus({
    brokerUrl: options.brokerUrl,
    topicPrefix: options.alarmTopicPrefix,
    logger: { info: (m) => logger.log(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
  if (options.brokerUrl) logger.log(`alarm gateway subscribes to ActiveMQ ${redactUrlPasswords(options.brokerUrl)}, topics ${bus.topicPrefix}<tenant>`);
  return bus;
}

/** Closes the bus the console made, after the gateway and the HTTP server have stopped. */
@Injectable()
export class ConsoleAlarmBusCloser implements OnApplicationShutdown {
  constructor(
    @Inject(CONSOLE_ALARM_BUS) private readonly bus: AlarmBus,
    @Inject(CONSOLE_ALARM_BUS_OWNED) private readonly owned: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owned) await this.bus.close();
  }
}
