import { describe, expect, it } from 'vitest';
import { readCallback } from './callback-body';

const NOW = 1_767_225_600_000;
const logsOf = (logs: unknown[]) => readCallback({ runId: 1, attempt: 1, tenantId: 'acme', logs }, NOW).logs ?? [];

describe('readCallback: log lines', () => {
  it('takes the four levels in any case (an executor written by hand sends WARN)', () => {
    const levels = ['debug', 'INFO', 'Warn', 'WARN', 'ERROR'].map((level) => ({ at: NOW, level, message: 'm' }));
    expect(logsOf(levels).map((l) => [l.level, l.message])).toEqual([
      ['debug', 'm'],
      ['info', 'm'],
      ['warn', 'm'],
      ['warn', 'm'],
      ['error', 'm'],
    ]);
  });

  it('stores a line of another level as info, saying what level it came with; one with none as info', () => {
    const lines = logsOf([
      { at: NOW, level: 'NOTICE', message: 'disk at 80%' },
      { at: NOW, level: 3, message: 'numbered' },
      { at: NOW, message: 'no level' },
    ]);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', '[level "NOTICE", not debug|info|warn|error] disk at 80%'],
      ['info', '[level 3, not debug|info|warn|error] numbered'],
      ['info', 'no level'],
    ]);
  });
});
