import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeExecutorConformance } from './executor-conformance';
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
