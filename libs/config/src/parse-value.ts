import type { ConfigVariable } from './config-variable';
import { ConfigError } from './config-error';
import { VALUE_CHECKS } from './schema';

/** A parsed value: text (string, url, enum), number (integer, duration-ms, port), flag, or list. */
export type ConfigValue = string | number | boolean | string[];

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/**
 * Parses `raw` (the variable's text, or its default when unset) by the variable's type and
 * checks. Undefined when unset without a default. Throws ConfigError naming variable, value and
 * reason.
 */
export function parseValue(variable: ConfigVariable, raw: string | undefined): ConfigValue | undefined {
  const text = raw?.trim();
  if (text === undefined || text === '') {
    if (variable.required) throw new ConfigError(variable.name, undefined, 'required (see docs/CONFIGURATION.md)');
    return variable.default === undefined ? undefined : parseValue({ ...variable, default: undefined }, variable.default);
  }
  const fail = (reason: string): never => {
    throw new ConfigError(variable.name, raw, reason);
  };
  const value = parseText(variable, text, fail);
  const check = VALUE_CHECKS[variable.name];
  if (check) {
    try {
      check(text);
    } catch (err) {
      fail((err as Error).message);
    }
  }
  return value;
}

function parseText(variable: ConfigVariable, text: string, fail: (reason: string) => never): ConfigValue {
  switch (variable.type) {
    case 'string':
      return text;
    case 'integer':
    case 'duration-ms': {
      const min = variable.min ?? 0;
      const unit = variable.type === 'duration-ms' ? ' (milliseconds)' : '';
      const { max } = variable;
      const range = max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
      if (!/^-?\d+$/.test(text) || Number(text) < min || (max !== undefined && Number(text) > max) || !Number.isSafeInteger(Number(text))) fail(`must be an integer ${range}${unit}`);
      return Number(text);
    }
    case 'port':
      if (!/^\d+$/.test(text) || Number(text) > 65535) fail('must be a port number, 0–65535 (0: any free port)');
      return Number(text);
    case 'boolean': {
      const lower = text.toLowerCase();
      if (TRUE.includes(lower)) return true;
      if (FALSE.includes(lower)) return false;
      return fail('must be true or false (also 1/0, yes/no, on/off)');
    }
    case 'enum':
      if (!variable.values?.includes(text)) fail(`must be one of ${variable.values?.join(', ')}`);
      return text;
    case 'url':
      if (!isUrl(text)) fail('must be a URL');
      return text;
    case 'list':
    case 'url-list': {
      const items = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = variable.type === 'url-list' ? items.find((u) => !isUrl(u)) : undefined;
      if (bad !== undefined) fail(`"${bad}" is not a URL (a comma-separated list of URLs)`);
      return items;
    }
  }
}

function isUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
