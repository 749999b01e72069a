/**
 * The Go SDK's Client (sdks/go/baton/client.go) against a real console: its example
 * (sdks/go/examples/client) emits an event twice under one idempotency key and triggers a run of
 * a task, then sends a bad key; the test reads its answers and the rows the console wrote.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventEntity, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { listenOnLoopback } from '../console/console-test-kit';
import { useClientConsole } from './client-console';
import { buildGoProgram } from './executor-process';

const run = promisify(execFile);

describe.each(TEST_DATABASES)('the Go client against a console on %s', (kind) => {
  const db = useTestDatabase(kind);
  const c = useClientConsole(db);
  let binary: string;

  // Built once (when a Go source is newer), before the clock of any test starts.
  beforeAll(() => void (binary = buildGoProgram('client')), 600_000);

  it('emits an event (once per idempotency key) and triggers a run; a refusal names its field', async () => {
    const { stdout } = await run(binary, [], { env: { ...process.env, BATON_API_URL: await listenOnLoopback(c.t), BATON_API_KEY: c.acme.adminKey['X-API-Key'], BATON_TASK_ID: String(c.manual) } });
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line) as { what: string; answer?: Record<string, unknown>; status?: number; errors?: unknown[] });
    const [event, again, trigger, bad] = answers;
    expect(event).toMatchObject({ what: 'event', answer: { name: 'order.paid', created: true } });
    expect(again).toMatchObject({ what: 'event again', answer: { id: event.answer!.id, created: false } });
    expect(trigger).toMatchObject({ what: 'trigger', answer: { created: true, run: { taskId: c.manual, state: 'PENDING' } } });
    expect(bad).toMatchObject({ what: 'bad key', status: 400, errors: [expect.objectContaining({ field: 'idempotencyKey' })] });

    const stored = await db.dataSource.getRepository(EventEntity).find({ where: { tenantId: 'acme' } });
    expect(stored.map((e) => e.idempotencyKey)).toEqual(['go-paid-42']);
    const started = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.onEvent } });
    expect(started.map((r) => r.id)).toEqual(event.answer!.runIds);
    const triggered = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.manual } });
    expect(triggered.map((r) => [r.id, r.params])).toEqual([[(trigger.answer!.run as { id: number }).id, { width: 3 }]]);
  });
});
