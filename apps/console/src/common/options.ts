import type { DataSource } from 'typeorm';
import type { AlarmBus } from '@baton/messaging';
import type { Clock } from './clock';

export interface ConsoleModuleOptions {
  /**
   * A Baton database URL (`mysql://…`, `sqlite:path`): the console opens it (running the
   * migrations) and closes it on shutdown. Give this, or `dataSource`, or neither when the
   * host application already imports `DatabaseModule` (global) itself.
   */
  databaseUrl?: string;
  /** A data source opened and closed by the host (shared with the engine in embedded mode). */
  dataSource?: DataSource;
  /** Source of "now"; the system clock by default. */
  clock?: Clock;
  /** Lifetime of a login session. Default 12 hours. */
  sessionTtlMs?: number;
  /** bcrypt cost for new passwords. Default 10 (tests use 4). */
  passwordHashRounds?: number;
  /**
   * The alarm bus the gateway subscribes to, owned (closed) by the host: embedded mode hands the
   * console the engine's in-process bus. Default: STOMP to `brokerUrl`, else an in-process bus
   * (made and closed by the console).
   */
  alarmBus?: AlarmBus;
  /** ActiveMQ STOMP broker(s) (`BATON_BROKER_URL`), when no `alarmBus` is given. */
  brokerUrl?: string | null;
  /** Alarm topics are `<prefix><tenantId>` (`BATON_ALARM_TOPIC_PREFIX`). Default `baton.alarms.`. */
  alarmTopicPrefix?: string;
  /** This console process in ack broadcasts (so it skips its own). Default `<hostname>-<pid>-<random>`. */
  consoleId?: string;
  /** socket.io server path. Default `/socket.io`. */
  socketPath?: string;
  /** socket.io CORS origins allowed (browsers on another origin). Default none (same origin only). */
  socketCorsOrigins?: string[];
  /**
   * After the gateway's subscription comes back (broker restart, network), it re-reads from the
   * database the alarms published since it was lost minus this margin (clock skew between engine
   * and console hosts), and drops the repeats by id. Default 30 000 ms.
   */
  alarmCatchUpMarginMs?: number;
}

/** Injection token of the resolved console options. */
export const CONSOLE_OPTIONS = Symbol('baton.console.options');

export interface ResolvedConsoleOptions {
  sessionTtlMs: number;
  passwordHashRounds: number;
  consoleId: string;
  socketPath: string;
  socketCorsOrigins: string[];
  alarmCatchUpMarginMs: number;
}

export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_PASSWORD_HASH_ROUNDS = 10;
