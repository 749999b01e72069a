/** What `npm start` says before it builds (issue 24: a fresh clone was told its "sources changed since the last server build"), and what makes it build. */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

interface Part {
  name: string;
  script: string;
  inputs: string[];
  skip: string[];
  output: string;
}
interface Stamp {
  startedAt: number;
  files: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is plain CommonJS, run before anything is compiled
const { announcement, isStale, scanInputs } = require('../../scripts/build-if-stale.js') as {
  announcement: (part: Pick<Part, 'name' | 'script' | 'output'>) => string;
  isStale: (part: Part, stamp: Stamp | null, root: string) => boolean;
  scanInputs: (part: Part, root: string) => { newest: number; files: string };
};

describe('build-if-stale announcement', () => {
  it('a part never built (no stamp, no output) is announced as a first build, not as changed sources', () => {
    const message = announcement({ name: 'never-built-part', script: 'build:server', output: 'dist/nothing-here.js' });
    expect(existsSync('dist/nothing-here.js')).toBe(false);
    expect(message).toBe('no never-built-part build yet (a fresh clone, or dist/ removed): building it once (npm run build:server)');
    expect(message).not.toContain('sources changed');
  });
});

describe('build-if-stale: what is stale', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A tree built a minute ago: its sources older than the stamp, the stamp taken from them. */
  function builtTree(): { root: string; part: Part; stamp: Stamp; write: (path: string, text?: string) => void } {
    const root = mkdtempSync(join(tmpdir(), 'baton-stale-'));
    roots.push(root);
    const part: Part = { name: 'server', script: 'build:server', inputs: ['package.json', 'apps', 'libs'], skip: ['apps/console/web'], output: 'dist/main.js' };
    const write = (path: string, text = 'x') => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    const minuteAgo = new Date(Date.now() - 60_000);
    for (const path of ['package.json', 'apps/cli/main.ts', 'libs/protocol/src/index.ts', 'libs/protocol/package.json', 'libs/executor-sdk/src/index.ts']) {
      write(path);
      utimesSync(join(root, path), minuteAgo, minuteAgo);
      for (let dir = dirname(path); dir !== '.'; dir = dirname(dir)) utimesSync(join(root, dir), minuteAgo, minuteAgo);
    }
    write('dist/main.js');
    const stamp = { startedAt: Date.now() - 30_000, files: scanInputs(part, root).files };
    return { root, part, stamp, write };
  }

  it('`npm run pack:sdk`’s outputs (libs/<pkg>/dist, the tarballs at the root) do not make the server stale', () => {
    const { root, part, stamp, write } = builtTree();
    expect(isStale(part, stamp, root)).toBe(false);
    write('libs/protocol/dist/protocol/src/index.js');
    write('libs/executor-sdk/dist/executor-sdk/src/index.d.ts');
    write('baton-protocol-0.1.0.tgz');
    write('apps/console/web/src/page.tsx'); // another part's input
    expect(isStale(part, stamp, root)).toBe(false);
    rmSync(join(root, 'libs/protocol/dist'), { recursive: true });
    expect(isStale(part, stamp, root)).toBe(false);
  });

  it('a source changed, added, deleted or renamed makes it stale; so does a missing stamp or output', () => {
    const changed = builtTree();
    changed.write('libs/protocol/src/index.ts', 'y');
    expect(isStale(changed.part, changed.stamp, changed.root)).toBe(true);

    const added = builtTree();
    added.write('libs/protocol/src/extra.ts');
    utimesSync(join(added.root, 'libs/protocol/src/extra.ts'), new Date(0), new Date(0)); // an old file copied in
    expect(isStale(added.part, added.stamp, added.root)).toBe(true);

    const deleted = builtTree();
    rmSync(join(deleted.root, 'apps/cli/main.ts'));
    expect(isStale(deleted.part, deleted.stamp, deleted.root)).toBe(true);

    const renamed = builtTree();
    renameSync(join(renamed.root, 'libs/executor-sdk/src/index.ts'), join(renamed.root, 'libs/executor-sdk/src/main.ts'));
    expect(isStale(renamed.part, renamed.stamp, renamed.root)).toBe(true);

    const unstamped = builtTree();
    expect(isStale(unstamped.part, null, unstamped.root)).toBe(true);
    rmSync(join(unstamped.root, 'dist/main.js'));
    expect(isStale(unstamped.part, unstamped.stamp, unstamped.root)).toBe(true);
  });
});
