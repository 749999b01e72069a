import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../..');

/** The modules of node_modules that requiring `entry` loads, in a fresh Node process (sources through the repo's register). */
function loadedPackages(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache).map((f) => /node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(f)?.[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names.map((n) => n.replace('\\\\', '/')))]));`;
  const out = execFileSync(process.execPath, ['-r', './test/protocol/register-ts.cjs', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

// The core entry is what a plain-Node executor imports: Nest (an optional peer dependency) and
// stompit (needed only for direct alarms) must stay out of it. Fails when someone adds an eager import.
describe('entry points of @baton/executor-sdk', () => {
  it('the core entry loads neither Nest nor stompit', () => {
    const loaded = loadedPackages('@baton/executor-sdk');
    expect(loaded.filter((n) => n.startsWith('@nestjs/') || n === 'stompit' || n === 'rxjs' || n === 'reflect-metadata')).toEqual([]);
  });

  it('the client entry neither', () => {
    const loaded = loadedPackages('@baton/executor-sdk/client');
    expect(loaded.filter((n) => n.startsWith('@nestjs/') || n === 'stompit')).toEqual([]);
  });

  it('the testing entry neither', () => {
    const loaded = loadedPackages('@baton/executor-sdk/testing');
    expect(loaded.filter((n) => n.startsWith('@nestjs/') || n === 'stompit')).toEqual([]);
  });

  it('the nest entry does load Nest (the check above can see it)', () => {
    expect(loadedPackages('@baton/executor-sdk/nest')).toEqual(expect.arrayContaining(['@nestjs/common', '@nestjs/core']));
  });
});
