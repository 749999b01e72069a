import { describe, expect, it } from 'vitest';
import { describeExecutorConformance } from './executor-conformance';

/**
 * The conformance suite against any executor, started by a shell command (docs/EXECUTOR-PROTOCOL.md):
 *
 *     BATON_CONFORMANCE_COMMAND='java -jar target/my-executor.jar' npx vitest run test/protocol/external-executor.e2e-spec.ts
 *
 * The command gets the BATON_* variables and must print `READY <url>`. Its handlers are named
 * by BATON_CONFORMANCE_HANDLERS (`role=name,…`; default the demo executor's names:
 * ok=noop,sleep=sleep,fail=fail-n-times,shard=shard-part,logSteps=long-running). Without the
 * command there is nothing to check and the suite says so.
 */
const command = process.env.BATON_CONFORMANCE_COMMAND?.trim();
const names: Record<string, string> = {
  ok: 'noop',
  sleep: 'sleep',
  fail: 'fail-n-times',
  shard: 'shard-part',
  logSteps: 'long-running',
  ...Object.fromEntries(
    (process.env.BATON_CONFORMANCE_HANDLERS ?? '')
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.split('=').map((s) => s.trim())),
  ),
};

describe('an executor given by BATON_CONFORMANCE_COMMAND', () => {
  it.runIf(!command)('needs BATON_CONFORMANCE_COMMAND (a shell command starting the executor) to check anything', () => {
    expect(command).toBeUndefined();
  });
});

if (command) {
  describeExecutorConformance({
    name: command,
    // `exec`: the shell becomes the executor, so the suite's SIGTERM reaches it.
    command: (env) => ({ command: 'sh', args: ['-c', `exec ${command}`], env }),
    handlers: {
      ok: { handler: names.ok },
      sleep: { handler: names.sleep, params: (ms) => ({ ms }) },
      fail: { handler: names.fail },
      failNonRetryable: { handler: names.fail, params: { nonRetryable: true } },
      shard: { handler: names.shard },
      logSteps: { handler: names.logSteps, params: (ms) => ({ ms }) },
    },
  });
}
