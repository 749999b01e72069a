import { beforeAll, describe, expect, it } from 'vitest';
import { describeExecutorConformance } from './executor-conformance';
import { buildGoExecutor, goExecutorCommand } from './executor-process';

// Built before any test of the file, whatever their order: a cold build takes minutes on a loaded
// machine, more than a test's or a hook's default timeout (a guard against hangs, not a measure).
beforeAll(() => void buildGoExecutor(), 600_000);

describe('the Go SDK demo executor (sdks/go/examples/demo-executor)', () => {
  it('builds with the standard library only (this suite skips nothing: without Go it fails)', () => {
    expect(buildGoExecutor()).toMatch(/demo-executor$/);
  });
});

describeExecutorConformance({
  name: 'sdks/go (Go SDK, standard library only)',
  command: (env) => goExecutorCommand(env),
  handlers: {
    ok: { handler: 'noop' },
    shard: { handler: 'shard-part' },
    logSteps: { handler: 'long-running', params: (ms) => ({ ms }), reportsProgress: true },
    sleep: { handler: 'sleep', params: (ms) => ({ ms }) },
    fail: { handler: 'fail-n-times' },
    failNonRetryable: { handler: 'fail-n-times', params: { nonRetryable: true } },
  },
});
