import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The rule `floors/no-back-up-import` (scripts/floors/) on files as an editor holds them: the text
// linted stands in for the file on disk, so a planted import is judged against the real graph.
const ROOT = resolve(__dirname, '../..');
const floors = createRequire(resolve(ROOT, 'package.json'))('./scripts/floors/eslint-plugin.cjs');
const config = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { floors },
    rules: { 'floors/no-back-up-import': 'error' },
  },
] as Linter.Config[];

function lint(file: string, text: string): string[] {
  return new Linter({ cwd: ROOT }).verify(text, config, resolve(ROOT, file)).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('floors/no-back-up-import', () => {
  it('fails a folder importing a folder that imports it back', () => {
    const problems = lint('apps/engine/src/common/planted.ts', "import type { RunOutcomes } from '../runs/run-outcomes';\nexport type P = RunOutcomes;\n");
    expect(problems).toEqual([expect.stringMatching(/^floors\/no-back-up-import: common imports runs, which imports common back \(runs → common\)/)]);
  });

  it('passes an import down a floor', () => {
    expect(lint('apps/engine/src/runs/planted.ts', "import { dispatchBackoffMs } from '../common/dispatch-backoff';\nexport const f = dispatchBackoffMs;\n")).toEqual([]);
  });

  it('fails a lib reaching into another lib by path, and two libs importing each other', () => {
    expect(lint('libs/config/src/planted.ts', "export { EXECUTOR_ENV } from '../../executor-sdk/src/env/executor-env';\n")).toEqual([
      expect.stringMatching(/a relative import into libs\/executor-sdk\/src/),
    ]);
    expect(lint('libs/domain/src/planted.ts', "export type { AlarmMessage } from '@baton/messaging';\n")).toEqual([
      expect.stringMatching(/libs\/domain imports libs\/messaging, which imports libs\/domain back/),
    ]);
  });

  it('leaves spec files out (a spec may wire any floors of its app)', () => {
    expect(lint('apps/engine/src/common/planted.spec.ts', "import '../runs/run-outcomes';\n")).toEqual([]);
  });
});
