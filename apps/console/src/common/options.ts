import type { DataSource } from 'typeorm';
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
}

/** Injection token of the resolved console options. */
export const CONSOLE_OPTIONS = Symbol('baton.console.options');

export interface ResolvedConsoleOptions {
  sessionTtlMs: number;
  passwordHashRounds: number;
}

export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_PASSWORD_HASH_ROUNDS = 10;
