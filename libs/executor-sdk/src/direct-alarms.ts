import { buildAlarmMessage, createAlarmBus, type AlarmBus, type AlarmMessage } from '@baton/messaging';
import type { BusinessAlarm, DispatchRequest } from '@baton/protocol';
import type { ResolvedExecutorOptions } from './options';

/**
 * Direct mode of `ctx.alarm()` (option `brokerUrl` / BATON_BROKER_URL): the executor publishes a
 * business alarm straight to its tenant's topic `<prefix><tenantId>`, in the same JSON as the
 * engine's relay (`baton.alarm/1`, source `executor`), under the alarm's own stable id, for
 * consumers of the topic. The alarm then still rides the callback (marked `published` when the
 * broker took it), and the engine records and publishes it under the same id: the consoles push
 * to browsers only alarms the database has, so they show the engine's copy; other consumers drop
 * the repeat by id.
 *
 * Tenant isolation: an executor holds its own tenant's secret only, but a broker trusts whoever
 * connects. Restrict, in the broker (ActiveMQ authentication + authorization per destination),
 * each executor's broker user to write `<prefix><its tenant>` only; the console's gateway also
 * drops any alarm whose tenantId is not the tenant of the topic it came on, or that the database
 * does not have.
 */
export class DirectAlarms {
  private constructor(
    readonly bus: AlarmBus,
    private readonly owned: boolean,
  ) {}

  /** The direct-mode publisher of these options, or null (alarms go through the engine). */
  static fromOptions(options: ResolvedExecutorOptions): DirectAlarms | null {
    if (options.alarmBus) return new DirectAlarms(options.alarmBus, false);
    if (!options.brokerUrl) return null;
    const log = options.logger;
    const bus = createAlarmBus({
      brokerUrl: options.brokerUrl,
      topicPrefix: options.alarmTopicPrefix,
      logger: { info: (m) => log.info(`[baton executor] ${m}`), warn: (m) => log.warn(`[baton executor] ${m}`), error: (m) => log.error(`[baton executor] ${m}`) },
    });
    return new DirectAlarms(bus, true);
  }

  /** Publishes the alarm; resolves true once the broker has it, false when it must go through the engine. */
  async publish(request: DispatchRequest, alarm: BusinessAlarm, executorId: number | undefined): Promise<boolean> {
    if (!this.bus.connected || alarm.id === undefined) return false;
    try {
      await this.bus.publish(directAlarmMessage(request, alarm, executorId));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.owned) await this.bus.close();
  }
}

/**
 * The message of a business alarm: what the engine would publish for it, but published by the
 * executor (`data` = `{ attempt, at, data? }` as the engine's businessAlarmData).
 */
export function directAlarmMessage(request: DispatchRequest, alarm: BusinessAlarm, executorId: number | undefined): AlarmMessage {
  return buildAlarmMessage({
    id: alarm.id!,
    tenantId: request.tenantId,
    type: 'BUSINESS',
    severity: alarm.severity,
    taskId: request.taskId,
    runId: request.runId,
    executorId: executorId ?? null,
    message: alarm.message,
    data: { attempt: request.attempt, at: alarm.at, ...(alarm.data === undefined ? {} : { data: alarm.data }) },
    count: 1,
    raisedAt: alarm.at,
    source: 'executor',
  });
}
