/**
 * The Java SDK's BatonClient (sdks/java/src/main/java/dev/baton/client) against a real console: its
 * example (sdks/java/examples/…/SubmitWork.java) emits an event twice under one idempotency key
 * and triggers a run of a task, then sends a bad key, then submits 20 runs at once (`submit`: sent
 * together) and one with a bad key; the test reads its answers and the rows the
 * console wrote. The Go client's twin is go-client.e2e-spec.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventEntity, RunEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { listenOnLoopback } from '../console/console-test-kit';
import { useClientConsole } from './client-console';
import { ensureJavaSdkBuilt } from './java-sdk-build';

const run = promisify(execFile);

describe.each(TEST_DATABASES)('the Java client against a console on %s', (kind) => {
  const db = useTestDatabase(kind);
  const c = useClientConsole(db);
  let classpath: string;

  // Built once (when a Java source is newer), before the clock of any test starts: a cold build
  // takes minutes on a loaded machine (a guard against hangs, not a measure).
  beforeAll(() => void (classpath = ensureJavaSdkBuilt()), 600_000);

  it('emits an event (once per idempotency key) and triggers a run; a refusal names its field', async () => {
    const env = { ...process.env, BATON_API_URL: await listenOnLoopback(c.t), BATON_API_KEY: c.acme.adminKey['X-API-Key'], BATON_TASK_ID: String(c.manual) };
    const { stdout } = await run(process.env.BATON_JAVA ?? 'java', ['-XX:+UseSerialGC', '-cp', classpath, 'dev.baton.examples.SubmitWork'], { env });
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line) as { what: string; answer?: Record<string, unknown>; status?: number; code?: string; errors?: unknown[] });
    expect(answers.map((a) => a.what)).toEqual(['event', 'event again', 'trigger', 'bad key', ...Array<string>(20).fill('submit'), 'submit bad key']);
    const [event, again, trigger, bad, ...submitted] = answers;
    const badSubmit = submitted.pop()!;
    expect(event).toMatchObject({ what: 'event', answer: { name: 'order.paid', created: true, refusedRuns: [] } });
    expect(again).toMatchObject({ what: 'event again', answer: { id: event.answer!.id, runIds: event.answer!.runIds, created: false } });
    expect(trigger).toMatchObject({ what: 'trigger', answer: { created: true, run: { taskId: c.manual, state: 'PENDING' } } });
    // A trigger's key goes in the Idempotency-Key header, and is named by it.
    expect(bad).toMatchObject({ what: 'bad key', status: 400, code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'idempotency-key' })] });

    const stored = await db.dataSource.getRepository(EventEntity).find({ where: { tenantId: 'acme' } });
    expect(stored.map((e) => [Number(e.id), e.idempotencyKey])).toEqual([[event.answer!.id, 'java-paid-42']]);
    const started = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.onEvent } });
    expect(started).toHaveLength(1);
    expect(started.map((r) => r.id)).toEqual(event.answer!.runIds);
    const triggered = await db.dataSource.getRepository(RunEntity).find({ where: { taskId: c.manual }, order: { id: 'ASC' } });
    const submits = submitted.map((s) => s.answer as unknown as { run: { id: number; taskId: number }; created: boolean; width: number });
    expect(submits.map((s) => s.width)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(submits.every((s) => s.created && s.run.taskId === c.manual)).toBe(true);
    expect(badSubmit).toMatchObject({ what: 'submit bad key', status: 400, code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'idempotencyKey' })] });
    // Each submission's run is the one made with its own params, whichever request carried it.
    expect(triggered.map((r) => [r.id, r.params])).toEqual(
      [[(trigger.answer!.run as { id: number }).id, { width: 3 }], ...submits.map((s) => [s.run.id, { width: s.width }])].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
  });
});
