import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PARAMS_BYTES } from '@baton/domain';
import { ConfigThread } from './config-thread';
import { readConfigFile } from './config-file';
import { MAX_YAML_ENTRIES, yamlBudgetProblem } from './yaml-budget';

/** A tasks file of `count` tasks, each with the params `params(i)` written as JSON (the way a script writes them into YAML). */
function tasksFile(count: number, params: (i: number) => unknown): string {
  const tasks = Array.from({ length: count }, (_, i) => `  - name: task-${i}\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: CRON, expression: "0 0 2 * * *", timeZone: UTC }\n    params: ${JSON.stringify(params(i))}\n`);
  return `version: 1\ntasks:\n${tasks.join('')}`;
}

/** Params of `bytes` bytes as JSON: quoted keys and values of 100 bytes, and one to make up the size. */
function paramsOf(bytes: number, seed: number): Record<string, string> {
  const params: Record<string, string> = {};
  for (let j = 0; j < Math.floor(bytes / 100) - 1; j++) params[`key-${String(j).padStart(4, '0')}`] = `${seed}`.padEnd(84, 'v');
  params.pad = '';
  params.pad = 'p'.repeat(bytes - JSON.stringify(params).length);
  return params;
}

describe('ConfigThread: what a tasks file costs its worker', () => {
  let thread: ConfigThread | undefined;
  afterEach(() => thread?.close());

  it('names each task whose params are too large in 3.85 MB of JSON written into YAML, read within 64 MB (its quoted scalars took 130 MB)', async () => {
    const file = tasksFile(60, (i) => paramsOf(MAX_PARAMS_BYTES + 11, i));
    expect(file.length).toBeGreaterThan(3_800_000);
    thread = new ConfigThread(64);
    const read = await thread.read(file, 'acme');
    expect(read).toEqual({ errors: Array.from({ length: 60 }, (_, i) => ({ field: `tasks[${i}].params`, reason: `is ${MAX_PARAMS_BYTES + 11} bytes as JSON; at most ${MAX_PARAMS_BYTES} are allowed` })) });
  }, 60_000);

  it('reads a file at the edge of the entry budget, however its entries are written (a comment on each: 1.6 KB an entry)', async () => {
    const keys = Array.from({ length: 1_000 }, (_, j) => `      k${j}: ${j} # note\n`).join('');
    const file = `version: 1\ntasks:\n${Array.from({ length: 98 }, (_, i) => `  - name: task-${i}\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: MANUAL }\n    params:\n${keys}`).join('')}`;
    expect(yamlBudgetProblem(file)).toBeNull();
    expect(yamlBudgetProblem(file, { entries: MAX_YAML_ENTRIES * 0.98, depth: 100 })).not.toBeNull();
    thread = new ConfigThread();
    const read = await thread.read(file, 'acme');
    expect('file' in read && read.file.tasks).toHaveLength(98);
  }, 60_000);

  it('plans both versions of 400 tasks of 8 KB params, every one changed (what apply holds too)', async () => {
    // The files as read (readConfigFile of their data: the YAML is the test above's business).
    const file = (seed: number) => {
      const tasks = Array.from({ length: 400 }, (_, i) => ({ name: `task-${i}`, executorApp: 'billing', handler: 'closeDay', trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' }, params: paramsOf(8_000, seed + i) }));
      return readConfigFile({ version: 1, tasks }, 'acme').file!;
    };
    const [current, desired] = [file(0), file(1_000)];
    const rows = Object.fromEntries(current.tasks.map((t) => [t.name, { fireCount: 3, createdAt: 0 }]));
    thread = new ConfigThread();
    const changes = JSON.parse(await thread.plan({ current, desired, prune: false, now: 0, rows })) as Array<{ action: string }>;
    expect(changes.filter((c) => c.action === 'update')).toHaveLength(400);
  }, 60_000);
});
