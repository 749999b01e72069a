import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_HANDLER_SCHEMAS_BYTES } from '@baton/protocol';
import { describeExecutorConformance } from './executor-conformance';
import { handlerSchemasOfSize } from './handler-schemas-of-size';
import { pythonExecutorCommand } from './executor-process';

const python = process.env.BATON_PYTHON ?? 'python3';

describe('python3 for examples/python-executor', () => {
  it('is installed (this suite skips nothing: without python3 it fails)', () => {
    let version = '';
    try {
      version = execFileSync(python, ['--version'], { encoding: 'utf8' }).trim();
    } catch (err) {
      throw new Error(`examples/python-executor needs python3 (${python}): ${(err as Error).message}. Install it (apt-get install python3) or set BATON_PYTHON.`);
    }
    expect(version).toMatch(/^Python 3\./);
  });

  it('sends the handlers\' params schemas by the SDK\'s rule: none over 16 KB, 60 KB for the whole object, only objects of its own handlers', () => {
    // sendable_schemas of executor.py, fed the SDK test's cases (libs/executor-sdk/src/handler-schemas.spec.ts).
    const script = `
import json, sys
sys.path.insert(0, "examples/python-executor")
from executor import sendable_schemas, HANDLERS, HANDLER_SCHEMAS
big = lambda n: {"type": "object", "description": "x" * n}
schemas = {"huge": big(16 * 1024), **{f"h{i}": big(15_000) for i in range(1, 6)}, "ghost": {"type": "object"}, "plain": "object"}
kept, left_out = sendable_schemas(schemas, {*schemas} - {"ghost"})
exact, over = json.load(sys.stdin)
sent = sendable_schemas(exact, exact)[0]
print(json.dumps({"kept": sorted(kept), "leftOut": left_out, "shipped": sendable_schemas(HANDLER_SCHEMAS, HANDLERS),
                  "exact": len(json.dumps(sent, separators=(",", ":"))), "over": sendable_schemas(over, over)[1]}))`;
    // The whole object's bound, to the byte, as the SDK test and the engine count it.
    const names = Array.from({ length: 5 }, (_, i) => `handler-${i}-`.padEnd(100, 'x'));
    const input = JSON.stringify([handlerSchemasOfSize(names, MAX_HANDLER_SCHEMAS_BYTES), handlerSchemasOfSize(names, MAX_HANDLER_SCHEMAS_BYTES + 1)]);
    const out = JSON.parse(execFileSync(python, ['-c', script], { encoding: 'utf8', input, cwd: resolve(__dirname, '../..') })) as { kept: string[]; leftOut: string[]; shipped: [Record<string, unknown>, string[]]; exact: number; over: string[] };
    expect(out.exact).toBe(MAX_HANDLER_SCHEMAS_BYTES);
    expect(out.over).toEqual([expect.stringMatching(/^handler-4-x+ \(\d+ bytes\)$/)]);
    expect(out.kept).toEqual(['h1', 'h2', 'h3', 'h4']);
    expect(out.leftOut).toEqual([expect.stringMatching(/^huge \(\d+ bytes\)$/), expect.stringMatching(/^h5 \(\d+ bytes\)$/), 'ghost (no such handler)', 'plain (not a JSON object)']);
    expect(out.shipped).toEqual([{ sleep: expect.objectContaining({ type: 'object' }) }, []]);
  });
});

describeExecutorConformance({
  name: 'examples/python-executor (Python 3 standard library)',
  command: (env) => pythonExecutorCommand(env),
  handlers: {
    ok: { handler: 'noop' },
    shard: { handler: 'shard-part' },
    logSteps: { handler: 'log-steps', params: (ms) => ({ ms }) },
    sleep: { handler: 'sleep', params: (ms) => ({ ms }) },
    fail: { handler: 'fail' },
    failNonRetryable: { handler: 'fail', params: { nonRetryable: true } },
  },
});
