import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { MAX_YAML_DEPTH, MAX_YAML_ENTRIES, yamlBudgetProblem } from './yaml-budget';

const small = { entries: 10, depth: 4 };

/** A value nested `levels` deep, alternating mappings and lists. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? { key: value, other: 1 } : [value, 2];
  return value;
}

describe('yamlBudgetProblem', () => {
  it('admits a file of 1,000 tasks and 100 dependencies', () => {
    const tasks = Array.from({ length: 1000 }, (_, i) => ({
      name: `task-${i}`,
      executorApp: 'billing',
      handler: 'closeDay',
      params: { shard: i, region: 'eu', nested: { list: [1, 2, { x: 'y' }] } },
      trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin' },
      retry: { maxAttempts: 3, backoffMs: 1000 },
    }));
    const dependencies = Array.from({ length: 100 }, (_, i) => ({ parent: `task-${i}`, child: `task-${i + 1}` }));
    expect(yamlBudgetProblem(stringify({ version: 1, tasks, dependencies }))).toBeNull();
  });

  it('counts nesting at least as deep as it is, written in block or flow style', () => {
    for (let levels = 1; levels <= 12; levels++) {
      const limits = { entries: 1000, depth: levels - 1 };
      for (const text of [stringify(nested(levels)), stringify(nested(levels), { collectionStyle: 'flow' }), JSON.stringify(nested(levels))]) {
        expect(yamlBudgetProblem(text, limits), `${levels} levels:\n${text}`).toMatch(/levels deep/);
      }
    }
  });

  it('admits params nested 40 levels deep', () => {
    expect(yamlBudgetProblem(stringify({ version: 1, tasks: [{ name: 'deep', params: nested(40) }] }))).toBeNull();
  });

  it('counts inline "- " entries and brackets', () => {
    expect(yamlBudgetProblem('- - - - - x', small)).toMatch(/levels deep/);
    expect(yamlBudgetProblem('a: [[[[[1]]]]]', small)).toMatch(/levels deep/);
    expect(yamlBudgetProblem('a: {b: {c: {d: {e: 1}}}}', small)).toMatch(/levels deep/);
    expect(yamlBudgetProblem(`- ${'['.repeat(MAX_YAML_DEPTH)}`)).toMatch(/levels deep/);
  });

  it('counts entries: keys, list items and flow items', () => {
    expect(yamlBudgetProblem(Array.from({ length: 11 }, (_, i) => `k${i}: 1`).join('\n'), small)).toMatch(/more than 10 entries/);
    expect(yamlBudgetProblem(Array.from({ length: 11 }, () => '- 1').join('\n'), small)).toMatch(/more than 10 entries/);
    expect(yamlBudgetProblem(`a: [${Array.from({ length: 11 }, () => '1').join(', ')}]`, small)).toMatch(/more than 10 entries/);
    expect(yamlBudgetProblem(Array.from({ length: MAX_YAML_ENTRIES + 1 }, (_, i) => `k${i}: 1`).join('\n'))).toMatch(/entries/);
    expect(yamlBudgetProblem(Array.from({ length: 10 }, (_, i) => `k${i}: 1`).join('\n'), small)).toBeNull();
  });

  it('does not count what is inside quotes, comments and block scalars', () => {
    const text = ['a: "[[[[[[ - - - ,,,,,,,,,,,"', "b: '{{{{{{ it''s [[[['", '# - - - - - [[[[[[', 'c: |', '  [[[[[[[[', '  - - - - - -', '  x: 1', 'd: plain [[[[[ text'].join('\n');
    expect(yamlBudgetProblem(text, small)).toBeNull();
  });
});
