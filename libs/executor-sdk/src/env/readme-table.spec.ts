import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXECUTOR_ENV } from './executor-env';

// The README's table of executorOptionsFromEnv is written by hand (with a word more for a
// newcomer); this keeps its names, types and defaults those of EXECUTOR_ENV.
describe('the SDK README lists the variables of EXECUTOR_ENV', () => {
  const rows = new Map(
    readFileSync(resolve(__dirname, '../../README.md'), 'utf8')
      .split('\n')
      .map((line) => /^\| `(BATON_[A-Z0-9_]+)` \| ([a-z-]+) \| ([^|]+) \|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], { type: m[2], default: m[3].trim() }]),
  );

  it.each(EXECUTOR_ENV.map((v) => [v.name, v] as const))('%s', (name, spec) => {
    const row = rows.get(name);
    expect(row, `README.md has no row for ${name}`).toBeDefined();
    expect(row!.type).toBe(spec.type);
    if (spec.required) expect(row!.default).toBe('**required**');
    else if (spec.default !== undefined) expect(row!.default).toBe(`\`${spec.default}\``);
  });

  it('and no other', () => {
    expect([...rows.keys()].sort()).toEqual(EXECUTOR_ENV.map((v) => v.name).sort());
  });
});
