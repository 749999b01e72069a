/**
 * The Go SDK's Client (sdks/go/baton/client.go) against a real console: its example
 * (sdks/go/examples/client) emits an event twice under one idempotency key and triggers a run of
 * a task, then sends a bad key, then submits 20 runs from 20 goroutines at once (Submit: sent
 * together) and one with a bad key; the test reads its answers and the rows the console wrote.
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
    const [event, again, trigger, bad, ...submitted] = answers;
    const badSubmit = submitted.pop()!;
    expect(event).toMatchObject({ what: 'event', answer: { name: 'order.paid', created: true } });
    expect(again).toMatchObject({ what: 'event again', answer: { id: event.answer!.id, created: false } });
    expect(trigger).toMatchObject({ what: 'trigger', answer: { created: true, run: { taskId: c.manual, state: 'PENDING' } } });
    // A trigger's key goes in the Idempotency-Key header, and is named by it.
    expect(bad).toMatchObject({ what: 'bad key', status: 400, errors: [expect.objectContaining({ field: 'idempotency-key' })] });

    const stored = await db.dataSource.getRepository(EventEntity).find({ where: { tenantId: 'acme' } });
    expect(stored.map((e) => e.idempotencyKey)).toEqual(['go-paid-42']);
    const started = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.onEvent } });
    expect(started.map((r) => r.id)).toEqual(event.answer!.runIds);
    const triggered = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.manual }, order: { id: 'ASC' } });
    const submits = submitted.map((s) => s.answer as { run: { id: number; taskId: number }; created: boolean; width: number });
    expect(submitted.every((s) => s.what === 'submit')).toBe(true);
    expect(submits.map((s) => s.width).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(submits.every((s) => s.created && s.run.taskId === c.manual)).toBe(true);
    // Each submission's run is the one made with its own params, whichever request carried it.
    const byId = new Map(triggered.map((r) => [r.id, r.params]));
    for (const s of submits) expect(byId.get(s.run.id)).toEqual({ width: s.width });
    expect(badSubmit).toMatchObject({ what: 'submit bad key', status: 400, errors: [expect.objectContaining({ field: 'idempotencyKey' })] });
    expect(triggered.map((r) => [r.id, r.params])).toEqual(
      [[(trigger.answer!.run as { id: number }).id, { width: 3 }], ...submits.map((s) => [s.run.id, { width: s.width }])].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
  });
});
