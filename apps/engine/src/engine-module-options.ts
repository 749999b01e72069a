import type { DataSource } from 'typeorm';
import type { Clock } from '@baton/domain';
import type { AlarmBus, InProcessWakeups } from '@baton/messaging';
import type { EngineConfig } from './config/engine-config';
import type { EngineMetrics } from './metrics/engine-metrics';

export interface EngineModuleOptions {
  /** The node's configuration. Default: readEngineConfig() (environment). */
  config?: EngineConfig;
  /**
   * A data source opened and closed by the host (embedded mode shares one with the console).
   * Default: the engine opens `config.databaseUrl` (running the migrations) and closes it on shutdown.
   */
  dataSource?: DataSource;
  /** False: the host application imports DatabaseModule (global) itself. Default true. */
  provideDatabase?: boolean;
  /** Source of "now"; the system clock by default. Embedded: give the console the same one. */
  clock?: Clock;
  /** The node's metrics registry. Default: a new EngineMetrics (with Node's default metrics). */
  metrics?: EngineMetrics;
  /**
   * The alarm bus the outbox relay publishes to, owned (closed) by the host: embedded mode gives
   * engine and console the same in-process bus. Default: STOMP to config.brokerUrl
   * (BATON_BROKER_URL), else an in-process bus; made and closed by the engine.
   */
  alarmBus?: AlarmBus;
  /**
   * Wake-ups from a console in the same process (embedded mode): the engine listens, and a run
   * triggered in the console is claimed at once. Default none: consoles in other processes send
   * POST /baton/wake.
   */
  wakeups?: InProcessWakeups;
}
