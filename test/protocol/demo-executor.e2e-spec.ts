import { describeExecutorConformance } from './executor-conformance';
import { demoExecutorCommand } from './executor-process';

describeExecutorConformance({
  name: 'apps/demo-executor (SDK, separate Node process)',
  command: (env) => demoExecutorCommand(env),
  handlers: {
    ok: { handler: 'noop' },
    shard: { handler: 'shard-part' },
    logSteps: { handler: 'long-running', params: (ms) => ({ ms }), reportsProgress: true },
    sleep: { handler: 'sleep', params: (ms) => ({ ms }) },
    fail: { handler: 'fail-n-times', params: { failures: 1 } },
    failNonRetryable: { handler: 'fail-n-times', params: { failures: 1, nonRetryable: true } },
  },
});
