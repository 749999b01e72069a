import type { BatonProcess, ConfigVariable } from './config-variable';
import { parseValue, type ConfigValue } from './parse-value';
import { variablesOf } from './schema';
import { unknownVariableWarnings } from './unknown-variables';

/**
 * The validated configuration of one process: every variable the schema lists for it, parsed
 * once at start. The getters take the variable's name; asking for one the process does not read
 * (per the schema) is a programming error, so the schema cannot fall behind the code.
 */
export class ProcessConfig {
  private constructor(
    readonly process: BatonProcess,
    private readonly values: ReadonlyMap<string, { variable: ConfigVariable; value: ConfigValue | undefined }>,
    /** Unknown `BATON_*` variables, one line each: the process logs them once its logger exists. */
    readonly warnings: readonly string[],
  ) {}

  /** Parses and checks every variable of `process` in `env`; throws ConfigError on the first bad one. */
  static load(process: BatonProcess, env: NodeJS.ProcessEnv = globalThis.process.env): ProcessConfig {
    const values = new Map(variablesOf(process).map((variable) => [variable.name, { variable, value: parseValue(variable, env[variable.name]) }]));
    return new ProcessConfig(process, values, unknownVariableWarnings(env));
  }

  string(name: string): string {
    return this.present(name, this.optionalString(name));
  }

  optionalString(name: string): string | undefined {
    return this.get(name, ['string', 'url', 'enum']) as string | undefined;
  }

  integer(name: string): number {
    return this.present(name, this.optionalInteger(name));
  }

  optionalInteger(name: string): number | undefined {
    return this.get(name, ['integer', 'duration-ms', 'port']) as number | undefined;
  }

  boolean(name: string): boolean {
    return this.present(name, this.get(name, ['boolean']) as boolean | undefined);
  }

  /** A `list` or `url-list`; empty when unset without a default. */
  list(name: string): string[] {
    return (this.get(name, ['list', 'url-list']) as string[] | undefined) ?? [];
  }

  private get(name: string, types: readonly ConfigVariable['type'][]): ConfigValue | undefined {
    const entry = this.values.get(name);
    if (!entry) throw new Error(`${name} is not a variable of the ${this.process} process in libs/config/src/schema.ts`);
    if (!types.includes(entry.variable.type)) throw new Error(`${name} is of type ${entry.variable.type}, not ${types.join('/')}`);
    return entry.value;
  }

  private present<T>(name: string, value: T | undefined): T {
    if (value === undefined) throw new Error(`${name} has no default in libs/config/src/schema.ts: read it with an optional getter`);
    return value;
  }
}
