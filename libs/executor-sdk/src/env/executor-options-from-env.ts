import { ExecutorOptionsError, integerRule, resolveExecutorOptions, type ExecutorOptions, type IntegerOption } from '../options';
import { EXECUTOR_ENV, type EnvVariableSpec } from './executor-env';
import { ExecutorEnvError } from './executor-env-error';

/** What the environment gives: every option but the handlers (they are code). */
export type EnvExecutorOptions = Omit<ExecutorOptions, 'handlers'> & Partial<Pick<ExecutorOptions, 'handlers'>>;

type Value = string | number | boolean | string[] | undefined;

/**
 * An executor's options from its BATON_* variables (the table EXECUTOR_ENV: names, types,
 * defaults, the option each sets), then `overrides` on top (what the code fixes, e.g.
 * `{ logger }`). Checked at once as the options' own checks would at start
 * (resolveExecutorOptions: ranges, the app's characters, the broker URL, the topic prefix):
 * throws an ExecutorEnvError naming the variable, its value and the rule when one is missing,
 * malformed or refused — or the options' own error when the code's override is.
 *
 *     runExecutor({ ...executorOptionsFromEnv(), handlers: [hello] });
 */
export function executorOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ExecutorOptions> = {}): EnvExecutorOptions {
  const given = new Map<EnvVariableSpec, string | undefined>(EXECUTOR_ENV.map((spec) => [spec, env[spec.name]?.trim() || spec.default]));
  const fromEnv: Record<string, unknown> = {};
  for (const [spec, value] of given) setOption(fromEnv, spec.option, readVariable(spec, value));
  const options = { ...fromEnv, ...overrides } as EnvExecutorOptions;
  try {
    resolveExecutorOptions({ ...options, handlers: [] });
  } catch (err) {
    // The code's own values (an override replaces a whole top-level option) are its to answer for.
    const spec = err instanceof ExecutorOptionsError && !(err.option.split('.')[0] in overrides) ? EXECUTOR_ENV.find((s) => s.option === err.option) : undefined;
    if (spec) throw new ExecutorEnvError(spec.name, given.get(spec), (err as ExecutorOptionsError).reason);
    throw err;
  }
  return options;
}

/** Sets `option` (`concurrency`, `callbackRetry.baseMs`) of `options` to a variable's value (undefined: unset, the option's default). */
function setOption(options: Record<string, unknown>, option: string, value: Value): void {
  const [name, field] = option.split('.');
  options[name] = field === undefined ? value : { ...(options[name] as object | undefined), [field]: value };
}

/** One variable's value (trimmed, or its default), parsed by its type. */
function readVariable(spec: EnvVariableSpec, value: string | undefined): Value {
  if (value === undefined) {
    if (spec.required) throw new ExecutorEnvError(spec.name, undefined, `is required: ${lowerFirst(spec.description)}`);
    return undefined;
  }
  const fail = (reason: string): never => {
    throw new ExecutorEnvError(spec.name, value, reason);
  };
  switch (spec.type) {
    case 'integer': {
      // Its range is the option's, checked with the others' rules (resolveExecutorOptions).
      const n = Number(value);
      return /^-?\d+$/.test(value) && Number.isSafeInteger(n) ? n : fail(integerRule(spec.option as IntegerOption));
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : fail('must be true or false');
    case 'url':
      return httpUrl(value) ? value : fail('must be an http(s) URL');
    case 'url-list': {
      const urls = value.split(',').map((u) => u.trim()).filter(Boolean);
      const bad = urls.find((u) => !httpUrl(u));
      if (bad !== undefined) fail(`"${bad}" is not an http(s) URL (a comma-separated list of engine base URLs)`);
      return urls.length > 0 ? urls : fail('must name at least one http(s) URL');
    }
    case 'string':
      return value;
  }
}

function httpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
