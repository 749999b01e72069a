import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredRunWrites } from '@baton/persistence';

const APPS = join(__dirname, '../../..');

/**
 * Where a write that moves runs between states may be called from. In the engine, only the run
 * lifecycle (this folder), which makes each move with its side effects. In the console, only its
 * door for run changes (a user's cancels, the fires a pause or an edit withdraws).
 */
const OWNERS = ['engine/src/runs/', 'console/src/run-changes/'];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'web' ? [] : sourcesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `file: name` for every call of a declared write outside its owners; `moves` only: writes that keep the state are annotations. */
function callsOutsideOwners(files: ReadonlyArray<{ path: string; text: string }>, names: readonly string[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (OWNERS.some((owner) => path.startsWith(owner))) continue;
    for (const name of names) if (new RegExp(`\\b${name}\\(`).test(text)) found.push(`${path}: ${name}`);
  }
  return found;
}

describe('one run lifecycle: every move of a run between states is made in apps/engine/src/runs (issue 20 item 7)', () => {
  const moves = declaredRunWrites()
    .filter((w) => w.to !== 'same')
    .map((w) => w.name);
  const files = sourcesUnder(APPS).map((path) => ({ path: relative(APPS, path), text: readFileSync(path, 'utf8') }));

  it('no file outside the owners calls a write that moves runs', () => {
    expect(moves.length).toBeGreaterThanOrEqual(17);
    expect(files.length).toBeGreaterThan(100);
    expect(callsOutsideOwners(files, moves)).toEqual([]);
  });

  it('a call from anywhere else is caught', () => {
    const intruder = { path: 'engine/src/dispatch/dispatcher.ts', text: 'await releaseRuns(em, { ids, from: "CLAIMED", owner, now });' };
    expect(callsOutsideOwners([intruder], moves)).toEqual(['engine/src/dispatch/dispatcher.ts: releaseRuns']);
  });
});
