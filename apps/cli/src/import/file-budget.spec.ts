import { describe, expect, it } from 'vitest';
import { limitBytes, overBudget } from './file-budget';

describe('overBudget', () => {
  it("reads the console's limit as body-parser does: 4mb is the 4194304 bytes its 413 names", () => {
    expect(limitBytes('4mb')).toBe(4_194_304);
    expect(() => limitBytes('four')).toThrow(/not <number>/);
  });

  it('a file over the body limit once sent as JSON, or over the YAML entry budget, is named with the limit; a small one is not', () => {
    expect(overBudget('version: 1\ntasks: []\n')).toBeNull();
    const line = `# ${'x'.repeat(98)}\n`;
    expect(overBudget(line.repeat(43_000))).toMatch(/^it is 4\.2 MB as plan and apply send it, over the console's tasks-as-code body limit of 4mb \(4194304 bytes\): they will be refused with 413$/);
    expect(overBudget(`tasks:\n${'  - a\n'.repeat(100_001)}`)).toMatch(/^it has more than 100000 entries .*, over the console's tasks-as-code budget: plan and apply will refuse it$/);
  });
});
