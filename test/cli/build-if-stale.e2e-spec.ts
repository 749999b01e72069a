/** What `npm start` says before it builds (issue 24: a fresh clone was told its "sources changed since the last server build"). */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is plain CommonJS, run before anything is compiled
const { announcement } = require('../../scripts/build-if-stale.js') as { announcement: (part: { name: string; script: string; output: string }) => string };

describe('build-if-stale announcement', () => {
  it('a part never built (no stamp, no output) is announced as a first build, not as changed sources', () => {
    const message = announcement({ name: 'never-built-part', script: 'build:server', output: 'dist/nothing-here.js' });
    expect(existsSync('dist/nothing-here.js')).toBe(false);
    expect(message).toBe('no never-built-part build yet (a fresh clone, or dist/ removed): building it once (npm run build:server)');
    expect(message).not.toContain('sources changed');
  });
});
