/** The processes Baton ships; each reads its own variables (`baton <process>` in the CLI). */
export type BatonProcess = 'embedded' | 'console' | 'engine' | 'executor' | 'cli';

export const BATON_PROCESSES: readonly BatonProcess[] = ['embedded', 'console', 'engine', 'executor', 'cli'];

/**
 * How a value is parsed and checked. `duration-ms` is an integer of milliseconds; `list` and
 * `url-list` are comma-separated (blanks dropped); `port` is 0–65535 (0: any free port).
 */
export type VariableType = 'string' | 'integer' | 'boolean' | 'url' | 'url-list' | 'list' | 'enum' | 'duration-ms' | 'port';

/**
 * One `BATON_*` variable as some processes read it. A name may appear in several entries when
 * processes read it differently (e.g. `BATON_DB_URL` is required by the console and defaults to
 * SQLite in the engine), but at most once per process.
 */
export interface ConfigVariable {
  name: string;
  type: VariableType;
  /** The value used when unset, as it would be written in the environment. None: unset (or required). */
  default?: string;
  /** The default as the docs say it when it is computed at start, e.g. `<hostname>-<pid>-<random>`. */
  defaultText?: string;
  /** Start fails when unset. Default false. */
  required?: boolean;
  /** Smallest value of an integer, duration or port. Default 0. */
  min?: number;
  /** Largest value of an integer or duration. Default: none. */
  max?: number;
  /** Allowed values of an `enum`. */
  values?: readonly string[];
  processes: readonly BatonProcess[];
  description: string;
}

/** A variable only the tests, benchmarks or scripts/ read: documented, never validated. */
export interface AuxiliaryVariable {
  name: string;
  /** Who reads it: `tests`, `scripts/mariadb.sh`, … */
  usedBy: string;
  default?: string;
  description: string;
}
