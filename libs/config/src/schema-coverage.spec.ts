import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownVariableNames } from './schema';

const ROOT = resolve(__dirname, '../../..');

/** Names that look like variables but are not read from the environment. */
const NOT_VARIABLES = new Set(['BATON_EXECUTOR_OPTIONS' /* a Nest injection token's description */]);

/** A variable as code reads or names it: `env.X`, `env['X']`, a quoted 'X', `${X}` or `$X` in a shell script. */
const VARIABLE = /(?:\benv\.|\benviron\.get\(|['"`]|\$\{?)(BATON_[A-Z0-9_]*[A-Z0-9])\b/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return /\.(ts|tsx|mjs|cjs|js|sh|py)$/.test(entry.name) && !/\.spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the configuration schema', () => {
  it('lists every BATON_* variable the code of apps/, libs/ and scripts/ reads or names', () => {
    const known = knownVariableNames();
    const unlisted: string[] = [];
    for (const file of ['apps', 'libs', 'scripts'].flatMap((d) => sources(join(ROOT, d)))) {
      for (const [, name] of readFileSync(file, 'utf8').matchAll(VARIABLE)) {
        if (!known.has(name) && !NOT_VARIABLES.has(name)) unlisted.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    expect(unlisted, 'add these to libs/config/src/schema.ts (then `npm run docs:config`)').toEqual([]);
  });
});
