import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTracing } from '@baton/tracing';
import { demoLogins } from '../../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../../apps/embedded/src/start-embedded';
import type { OtlpReceiver } from '../../support/otlp-receiver';

export interface TracedEmbedded {
  baton: EmbeddedBaton;
  /** The demo tenant's bearer header. */
  auth: { authorization: string };
  /** The demo tasks' ids by name. */
  taskIds: Map<string, number>;
  /** Stops Baton, flushes and stops tracing, and gives the process its environment back. */
  close(): Promise<void>;
}

/**
 * The embedded mode (console, engine and the SDK-built demo executor in this process) exporting
 * over OTLP/HTTP JSON to `receiver`, with `otel` (more OTEL_* or BATON_* variables) in the
 * environment tracing and the console read. Once per test file: tracing starts once a process.
 */
export async function startTracedEmbedded(receiver: OtlpReceiver, otel: Record<string, string>): Promise<TracedEmbedded> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-tracing-'));
  const logins = demoLogins({});
  const saved = { ...process.env };
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start(), OTEL_BSP_SCHEDULE_DELAY: '50', ...otel });
  const tracing = startTracing('baton', process.env);
  const undo = async () => {
    await tracing.shutdown();
    await receiver.stop();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  };
  const baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins).catch(async (err: unknown) => {
    await undo();
    throw err;
  });
  const login = await request(baton.url).post('/api/auth/login').send(logins.tenant).expect(200);
  const auth = { authorization: `Bearer ${login.body.token}` };
  const tasks = await request(baton.url).get('/api/tasks').set(auth).expect(200);
  const taskIds = new Map<string, number>(tasks.body.items.map((t: { name: string; id: number }) => [t.name, t.id]));
  return {
    baton,
    auth,
    taskIds,
    async close() {
      await baton.close();
      await undo();
    },
  };
}
