import { describe, expect, it } from 'vitest';
import { keptNames } from './kept-names';

describe('keptNames: the names of the file an import replaces, by importedFrom', () => {
  it('reads the tasks that have an importedFrom; other YAML gives none, a text that is not YAML null', () => {
    const file = '# header\nversion: 1\ntasks:\n  - name: nightly-report\n    importedFrom: xxl-job:xxl_job/xxl_job_ job 1\n  - name: by-hand\n  - null\n';
    expect(keptNames(file)).toEqual(new Map([['xxl-job:xxl_job/xxl_job_ job 1', 'nightly-report']]));
    expect(keptNames('just: a mapping\n')).toEqual(new Map());
    expect(keptNames('')).toEqual(new Map());
    expect(keptNames('a: [unclosed\n')).toBeNull();
  });
});
