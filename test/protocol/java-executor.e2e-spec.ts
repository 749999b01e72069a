import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeExecutorConformance } from './executor-conformance';
import { javaExecutorCommand } from './executor-process';
import { ensureJavaSdkBuilt, JAVA_SDK_DIR } from './java-sdk-build';

// Built before any test of the file, whatever their order: a cold build takes minutes on a loaded
// machine, more than a hook's default timeout (a guard against hangs, not a measure).
beforeAll(() => ensureJavaSdkBuilt(), 600_000);

describe('the Java SDK (sdks/java)', () => {
  it('builds offline with the JDK and Debian\'s Jackson into a versioned jar, and its unit tests pass', () => {
    // build.sh test: the build again, then the JUnit 4 tests (signing vectors, checks, schema bounds, log tail, environment).
    const run = spawnSync(join(JAVA_SDK_DIR, 'build.sh'), ['test'], { cwd: JAVA_SDK_DIR, encoding: 'utf8', stdio: 'pipe' });
    // On failure, JUnit's report (stdout: which test, its assertion and stack) is the message.
    expect(run.status, `${run.stdout}\n${run.stderr}`.slice(-6000)).toBe(0);
    expect(run.stdout).toMatch(/^OK \(\d+ tests?\)$/m);
  }, 600_000);
});

describeExecutorConformance({
  name: 'sdks/java (the demo handlers on the Java SDK)',
  command: (env) => javaExecutorCommand(env),
  handlers: {
    ok: { handler: 'noop' },
    shard: { handler: 'shard-part' },
    logSteps: { handler: 'long-running', params: (ms) => ({ ms }), reportsProgress: true },
    sleep: { handler: 'sleep', params: (ms) => ({ ms }) },
    fail: { handler: 'fail-n-times', params: { failures: 1000 } },
    failNonRetryable: { handler: 'fail-n-times', params: { failures: 1000, nonRetryable: true } },
  },
});
