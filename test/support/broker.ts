import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The ActiveMQ broker of the tests (STOMP on 127.0.0.1). global-setup.ts starts a private one with
 * scripts/activemq.sh (or uses BATON_TEST_BROKER_URL) and names it in BATON_TEST_BROKER_URL; if it
 * could not, the broker suites fail with the reason, never pass silently.
 *
 * A test that needs to stop and start a broker (an outage) must not touch the shared one: it starts
 * its own with `privateBroker(port)` on another STOMP port and stops it at the end.
 */

const run = promisify(execFile);
export const ACTIVEMQ_SCRIPT = resolve(__dirname, '../../scripts/activemq.sh');

/** `stomp://127.0.0.1:61613` — the shared test broker, or a loud error. */
export function testBrokerUrl(): string {
  const url = process.env.BATON_TEST_BROKER_URL;
  if (url) return url;
  if (process.env.BATON_SKIP_BROKER === '1') {
    throw new Error(
      'ActiveMQ tests cannot run: BATON_SKIP_BROKER=1 is set. Unset it (the test setup then starts a private broker via ' +
        'scripts/activemq.sh) or set BATON_TEST_BROKER_URL=stomp://host:port',
    );
  }
  const why = process.env.BATON_TEST_BROKER_ERROR;
  throw new Error(
    'ActiveMQ tests cannot run: no test broker. ' +
      (why ? `Starting the private ActiveMQ failed: ${why}` : 'BATON_TEST_BROKER_URL is not set (is test/support/global-setup.ts configured?).'),
  );
}

/** Runs scripts/activemq.sh with the given STOMP port; returns its stdout. */
export function activemqScript(port: number | null, ...args: string[]): Promise<string> {
  return activemqScriptWith({}, port, ...args);
}

/** As activemqScript, with `extra` over the environment (BATON_ACTIVEMQ_USER, …). */
async function activemqScriptWith(extra: Record<string, string>, port: number | null, ...args: string[]): Promise<string> {
  const env = { ...process.env, ...extra };
  if (port !== null) env.BATON_ACTIVEMQ_STOMP_PORT = String(port);
  try {
    const { stdout } = await run('bash', [ACTIVEMQ_SCRIPT, ...args], { encoding: 'utf8', env, timeout: 10 * 60_000, maxBuffer: 16 << 20 });
    return stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`scripts/activemq.sh ${args.join(' ')} failed: ${(e.stderr || e.message).trim()}`);
  }
}

/** A broker of one test file, on its own port, which the test may stop and start at will. */
export interface PrivateBroker {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** With `login`: the broker's simple authentication on, that one user (BATON_ACTIVEMQ_USER / _PASSWORD); the URL carries it. */
export async function privateBroker(port: number, login?: { user: string; password: string }): Promise<PrivateBroker> {
  const lease = String(process.pid);
  const env: Record<string, string> = login ? { BATON_ACTIVEMQ_USER: login.user, BATON_ACTIVEMQ_PASSWORD: login.password } : {};
  const url = await activemqScriptWith(env, port, 'start', '--lease', lease);
  return {
    url,
    port,
    start: async () => void (await activemqScriptWith(env, port, 'start', '--lease', lease)),
    stop: async () => void (await activemqScriptWith(env, port, 'stop')),
  };
}
