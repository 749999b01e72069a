import { defaultNodeId, retentionCeiling, type ProcessConfig } from '@baton/config';
import type { DataSource } from 'typeorm';
import type { AlarmBus, RunWakeups } from '@baton/messaging';
import type { RetentionCeiling } from '@baton/domain';
import { readSsoOptions, type SsoOptions } from './sso-options';
import type { Clock } from './clock';
import { configuredPassword } from './password';

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
   * When the web console's session cookie is Secure (`BATON_SESSION_COOKIE_SECURE`): `auto`, when
   * the login came over https (TLS, or `X-Forwarded-Proto: https`); `always`. Default `auto`.
   */
  sessionCookieSecure?: SessionCookieSecure;
  /**
   * The alarm bus the gateway subscribes to, owned (closed) by the host: embedded mode hands the
   * console the engine's in-process bus. Default: STOMP to `brokerUrl`, else an in-process bus
   * (made and closed by the console).
   */
  alarmBus?: AlarmBus;
  /**
   * How a run due now (a manual trigger) reaches the engines at once, rather than at their next
   * poll: embedded mode gives the engine's in-process wake-ups. Default: a signed POST /baton/wake
   * to each live engine of the tenant's group (EngineWakeups).
   */
  wakeups?: RunWakeups;
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
   * database the alarms published since its connection last brought anything from the broker
   * minus this margin (clock skew between engine and console hosts; what the console read after
   * a stall of its own event loop counts as heard when read, not when it came), and drops the
   * repeats by id. Default 30 000 ms.
   */
  alarmCatchUpMarginMs?: number;
  /**
   * The cluster's retention ceilings (`BATON_RUN_RETENTION_MS`, `BATON_LOG_RETENTION_MS`,
   * `BATON_ALARM_RETENTION_MS`, `BATON_MAX_RUNS_KEPT`): a tenant's policy above them is refused.
   * Default 30 d / 7 d / 30 d / 100 runs.
   */
  retentionCeiling?: RetentionCeiling;
  /** Single sign-on: OpenID Connect, LDAP and their group mapping (`BATON_OIDC_*`, `BATON_LDAP_*`, `BATON_SSO_GROUP_MAP`). Default none. */
  sso?: SsoOptions;
  /** A run's link to its trace (`BATON_TRACE_URL_TEMPLATE`): `{traceId}` is replaced. Default null: no link. */
  traceUrlTemplate?: string | null;
}

/**
 * When the session cookie is marked Secure (`BATON_SESSION_COOKIE_SECURE`):
 * - `auto`: when the request came over https — a TLS connection to the console, or a proxy's
 *   `X-Forwarded-Proto: https` (trusting it can only add Secure to the requester's own cookie);
 * - `always`: every time (a TLS proxy that sends no `X-Forwarded-Proto`); a plain-http browser
 *   then never sends the cookie back.
 */
export type SessionCookieSecure = 'auto' | 'always';

/** Injection token of the resolved console options. */
export const CONSOLE_OPTIONS = Symbol('baton.console.options');

export interface ResolvedConsoleOptions {
  sessionTtlMs: number;
  passwordHashRounds: number;
  sessionCookieSecure: SessionCookieSecure;
  consoleId: string;
  socketPath: string;
  socketCorsOrigins: string[];
  alarmCatchUpMarginMs: number;
  retentionCeiling: RetentionCeiling;
  sso: SsoOptions;
  traceUrlTemplate: string | null;
}

export const DEFAULT_RETENTION_CEILING: RetentionCeiling = { runsMs: 30 * 86_400_000, logsMs: 7 * 86_400_000, alarmsMs: 30 * 86_400_000, minRunsKept: 100 };

export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_PASSWORD_HASH_ROUNDS = 10;

/** How the standalone console process runs (`baton console`), read from the environment. */
export interface ConsoleProcessConfig {
  /** Instance id: `nodeId` of its log lines and `consoleId` of the module. Default `<hostname>-<pid>-<random>`. */
  consoleId: string;
  /** `BATON_DB_URL`, required. */
  databaseUrl: string;
  /** `BATON_HOST`. Default 127.0.0.1. */
  host: string;
  /** `BATON_CONSOLE_PORT`. Default 8080. */
  port: number;
  /** `BATON_OPERATOR_USERNAME` and `BATON_OPERATOR_PASSWORD`: created on start when missing. Default none. */
  operator: { username: string; password: string } | null;
  /** `BATON_BROKER_URL`, `BATON_ALARM_TOPIC_PREFIX`, `BATON_CONSOLE_CORS_ORIGINS`, `BATON_SESSION_COOKIE_SECURE`, the retention ceilings, single sign-on. */
  module: Pick<ConsoleModuleOptions, 'databaseUrl' | 'brokerUrl' | 'alarmTopicPrefix' | 'socketCorsOrigins' | 'sessionCookieSecure' | 'consoleId' | 'retentionCeiling' | 'sso' | 'traceUrlTemplate'>;
}

/** The console's variables through the schema (libs/config): a bad one throws ConfigError. */
export function readConsoleConfig(values: ProcessConfig): ConsoleProcessConfig {
  const consoleId = defaultNodeId();
  const databaseUrl = values.string('BATON_DB_URL');
  const username = values.optionalString('BATON_OPERATOR_USERNAME');
  const password = values.optionalString('BATON_OPERATOR_PASSWORD');
  if (password) configuredPassword('BATON_OPERATOR_PASSWORD', password);
  return {
    consoleId,
    databaseUrl,
    host: values.string('BATON_HOST'),
    port: values.integer('BATON_CONSOLE_PORT'),
    operator: username && password ? { username, password } : null,
    module: {
      consoleId,
      databaseUrl,
      brokerUrl: values.optionalString('BATON_BROKER_URL') ?? null,
      alarmTopicPrefix: values.string('BATON_ALARM_TOPIC_PREFIX'),
      socketCorsOrigins: values.list('BATON_CONSOLE_CORS_ORIGINS'),
      sessionCookieSecure: sessionCookieSecure(values),
      retentionCeiling: retentionCeiling(values),
      sso: readSsoOptions(values),
      traceUrlTemplate: values.optionalString('BATON_TRACE_URL_TEMPLATE') ?? null,
    },
  };
}

/** The link to a run's trace: `template` with `{traceId}` replaced; null without a template or a trace. */
export function traceUrlOf(template: string | null, traceId: string | null): string | null {
  return template && traceId ? template.replaceAll('{traceId}', traceId) : null;
}

/** `BATON_SESSION_COOKIE_SECURE` (the schema's enum: `auto` or `always`). */
export function sessionCookieSecure(values: ProcessConfig): SessionCookieSecure {
  return values.string('BATON_SESSION_COOKIE_SECURE') as SessionCookieSecure;
}
