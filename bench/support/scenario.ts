import type { Infra } from './infra';

/** What the runner (bench/run.ts) hands every scenario. */
export interface ScenarioContext {
  /** `--full`: every case of the table; otherwise the quick set (all scenarios together < 10 min). */
  full: boolean;
  /** The command line after `npm run bench --`: scenario options such as `--cases=…`, `--tag=…`. */
  args: readonly string[];
  /** The private MariaDB and the cluster-suite lock — absent for a standalone scenario. */
  infra: Infra;
  log(line: string): void;
}

/** One benchmark scenario: starts what it needs, prints its tables, writes bench/results/<name>*.json/.svg. */
export interface Scenario {
  name: string;
  /** One line for `npm run bench -- --help`. */
  description: string;
  /** Its options, printed by `npm run bench -- <scenario> --help`. */
  options?: string;
  /** Needs neither MariaDB nor the cluster-suite lock (an in-process micro-benchmark; or, by its options, a case that does not). Default false. */
  standalone?: boolean | ((args: readonly string[]) => boolean);
  /** Part of the quick set (`npm run bench` with no scenario named). Default true; false: only by name or with --full. */
  quickSet?: boolean;
  /** Returns the runner's summary rows: [case, figures]. */
  run(ctx: ScenarioContext): Promise<Array<[string, string]>>;
}

/** `--name=value` from the command line, or undefined. */
export function option(args: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** `--engine-env=BATON_A=1,BATON_B=2`: only BATON_ settings, each NAME=value. */
export function parseEngineEnv(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  return Object.fromEntries(
    value.split(',').map((pair) => {
      const match = /^(BATON_[A-Z0-9_]+)=(.*)$/.exec(pair);
      if (!match) throw new Error(`--engine-env: "${pair}" is not BATON_NAME=value`);
      return [match[1], match[2]];
    }),
  );
}
