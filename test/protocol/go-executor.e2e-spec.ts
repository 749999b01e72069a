import { describe, expect, it } from 'vitest';
import { describeExecutorConformance } from './executor-conformance';
import { buildGoExecutor, goExecutorCommand } from './executor-process';

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
