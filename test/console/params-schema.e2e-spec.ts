/**
 * Handler params schemas (issue 14 item 1) through the console API: the schema the UP executors
 * of a task's app declare for its handler (their heartbeats' handlerSchemas) is shown with the
 * executors and checked when the task is saved — the executor heard from last decides; none
 * declared, nothing checked; another tenant's executors never count. The check is bounded
 * (issue 20 item 3): a hostile schema is refused in its deadline, off the event loop.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { CATASTROPHIC_INPUT, CATASTROPHIC_PATTERN, nestedAnyOf } from '../support/hostile-schemas';
import { insertExecutor, rowCounts, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

const RESIZE = {
  type: 'object',
  required: ['width'],
  additionalProperties: false,
  properties: {
    width: { type: 'integer', minimum: 1, description: 'Pixels' },
    format: { enum: ['png', 'jpeg'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

describe.each(TEST_DATABASES)('handler params schemas through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;

  const declare = async (tenantId: string, app: string, schemas: Record<string, unknown>, heartbeatAt = T0) => {
    const row = await insertExecutor(db.dataSource, tenantId, app);
    await db.dataSource.query('UPDATE executors SET handlers = ?, handler_schemas = ?, heartbeat_at = ? WHERE id = ?', [JSON.stringify(['resize', 'plain']), JSON.stringify(schemas), heartbeatAt, row.id]);
    return row;
  };
  const task = (name: string, params: unknown, app = 'images') => ({ name, executorApp: app, handler: 'resize', trigger: { kind: 'MANUAL' }, params });

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    await declare('acme', 'images', { resize: RESIZE });
    // Another tenant's executor of the same app, with a schema every task would fail: never applies to acme.
    await declare('globex', 'images', { resize: { type: 'object', required: ['never'] } });
  });
  afterAll(() => t?.close());

  it('shows each executor its handlers’ schemas, to its own tenant only', async () => {
    const mine = await t.http().get('/api/executors').set(acme.viewer);
    // Other tests declare executors of other apps: this one's app is 'images'.
    const images = ((mine.body.items ?? mine.body) as Array<{ app: string }>).filter((e) => e.app === 'images');
    expect(images).toEqual([expect.objectContaining({ app: 'images', handlers: ['resize', 'plain'], handlerSchemas: { resize: RESIZE } })]);
    const theirs = await t.http().get('/api/executors').set(globex.viewer);
    expect(JSON.stringify(theirs.body)).not.toContain('"width"');
  });

  it("shows a viewer the values a schema gives secret-named params as [redacted], an admin as declared; the schema itself to both", async () => {
    const SIGNED = {
      type: 'object',
      properties: {
        apiToken: { type: 'string', minLength: 8, default: 'tok_live_default', examples: ['tok_live_example'] },
        dbPassword: { const: 'hunter2-const' },
        signingKey: { type: 'object', properties: { key: { enum: ['k-enum-1', 'k-enum-2'] } } },
        region: { enum: ['eu', 'us'], default: 'eu' },
      },
      default: { region: 'eu', apiToken: 'tok_live_root' },
    };
    const row = await declare('acme', 'signer', { resize: SIGNED });
    const onList = async (as: typeof acme.admin) => ((await t.http().get('/api/executors').set(as)).body as Array<{ id: number; handlerSchemas: unknown }>).find((e) => e.id === row.id)!.handlerSchemas;
    const byId = async (as: typeof acme.admin) => (await t.http().get(`/api/executors/${row.id}`).set(as)).body.handlerSchemas;
    for (const as of [acme.admin, acme.adminKey]) {
      expect(await onList(as)).toEqual({ resize: SIGNED });
      expect(await byId(as)).toEqual({ resize: SIGNED });
    }
    const shown = {
      resize: {
        type: 'object',
        properties: {
          apiToken: { type: 'string', minLength: 8, default: '[redacted]', examples: ['[redacted]'] },
          dbPassword: { const: '[redacted]' },
          signingKey: { type: 'object', properties: { key: { enum: ['[redacted]', '[redacted]'] } } },
          region: { enum: ['eu', 'us'], default: 'eu' },
        },
        default: { region: 'eu', apiToken: '[redacted]' },
      },
    };
    for (const as of [acme.viewer, acme.viewerKey]) {
      expect(await onList(as)).toEqual(shown);
      expect(await byId(as)).toEqual(shown);
    }
  });

  it('refuses params that do not fit, naming each path and reason, and stores nothing', async () => {
    const before = await rowCounts(db.dataSource);
    const res = await t.http().post('/api/tasks').set(acme.admin).send(task('resize-bad', { width: 0, format: 'gif', tags: ['a', 2], colour: 'red' }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'params.colour', reason: "is not a param the handler's schema allows" },
        { field: 'params.width', reason: 'must be >= 1' },
        { field: 'params.format', reason: 'must be equal to one of the allowed values: "png", "jpeg"' },
        { field: 'params.tags[1]', reason: 'must be string' },
      ]),
    );
    const missing = await t.http().post('/api/tasks').set(acme.admin).send(task('resize-bad', {}));
    expect(missing.body.errors).toEqual([{ field: 'params.width', reason: "is required by the handler's params schema" }]);
    const batch = await t.http().post('/api/tasks/batch').set(acme.admin).send({ tasks: [task('b-ok', { width: 5 }), task('b-bad', { width: 'wide' })] });
    expect(batch.status).toBe(400);
    expect(batch.body.errors).toEqual([{ field: 'tasks[1].params.width', reason: 'must be integer' }]);
    expect(await rowCounts(db.dataSource)).toEqual(before);
  });

  it('saves params that fit; checks an edit too; a handler without a schema is not checked', async () => {
    const ok = await t.http().post('/api/tasks').set(acme.admin).send(task('resize-ok', { width: 640, format: 'png' }));
    expect(ok.status).toBe(201);
    expect(ok.body.warnings).toEqual([]);
    const edit = await t.http().patch(`/api/tasks/${ok.body.id}`).set(acme.admin).send({ params: { width: -1 }, version: ok.body.version });
    expect(edit.status).toBe(400);
    expect(edit.body.errors).toEqual([{ field: 'params.width', reason: 'must be >= 1' }]);
    const plain = await t.http().post('/api/tasks').set(acme.admin).send({ ...task('plain', { anything: true }), handler: 'plain' });
    expect(plain.status).toBe(201);
    const otherApp = await t.http().post('/api/tasks').set(acme.admin).send(task('elsewhere', { width: 0 }, 'videos'));
    expect(otherApp.status).toBe(201); // no executor of "videos": nothing says what the params should be (a warning says none is up)
  });

  it('words a params refusal alike on every route that checks params: `<where>params.width: must be >= 1`, the error body the same', async () => {
    const saved = await t.http().post('/api/tasks').set(acme.admin).send({ ...task('resize-routes', { width: 5 }), trigger: { kind: 'EVENT', event: 'image.uploaded', params: { width: 'size' } } });
    expect(saved.status).toBe(201);
    const id = saved.body.id as number;
    const refusals = {
      create: await t.http().post('/api/tasks').set(acme.admin).send(task('resize-zero', { width: 0 })),
      update: await t.http().patch(`/api/tasks/${id}`).set(acme.admin).send({ params: { width: 0 }, version: saved.body.version }),
      createBatch: await t.http().post('/api/tasks/batch').set(acme.admin).send({ tasks: [task('resize-zero', { width: 0 })] }),
      trigger: await t.http().post(`/api/tasks/${id}/trigger`).set(acme.adminKey).send({ params: { width: 0 } }),
      atomicBatch: await t.http().post('/api/runs/batch').set(acme.adminKey).send({ atomic: true, runs: [{ taskId: id, params: { width: 0 } }] }),
    };
    const bodies = Object.fromEntries(Object.entries(refusals).map(([route, res]) => [route, { status: res.status, ...res.body }]));
    const refused = (field: string) => ({ statusCode: 400, status: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: `${field}: must be >= 1`, errors: [{ field, reason: 'must be >= 1' }] });
    expect(bodies).toEqual({
      create: refused('params.width'),
      update: refused('params.width'),
      createBatch: refused('tasks[0].params.width'),
      trigger: refused('params.width'),
      atomicBatch: refused('runs[0].params.width'),
    });
    // Where each refusal is one item's of a request answered 200: the same body.
    const batch = await t.http().post('/api/runs/batch').set(acme.adminKey).send({ runs: [{ taskId: id, params: { width: 0 } }] });
    expect(batch.body.results[0]).toEqual({ status: 400, error: { statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: 'runs[0].params.width: must be >= 1', errors: [{ field: 'runs[0].params.width', reason: 'must be >= 1' }] } });
    const event = await t.http().post('/api/events').set(acme.adminKey).send({ name: 'image.uploaded', payload: { size: 0 } });
    expect(event.body.refusedRuns).toEqual([{ taskId: id, status: 400, error: { statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: `tasks.${id}.params.width: must be >= 1`, errors: [{ field: `tasks.${id}.params.width`, reason: 'must be >= 1' }] } }]);
  });

  it('follows the executor heard from last when two declare different schemas, and warns about one it cannot use', async () => {
    await declare('acme', 'thumbs', { resize: { type: 'object', properties: { width: { type: 'integer', maximum: 100 } } } }, T0);
    await declare('acme', 'thumbs', { resize: { type: 'object', properties: { width: { type: 'integer', maximum: 1000 } } } }, T0 + 1_000);
    expect((await t.http().post('/api/tasks').set(acme.admin).send(task('thumb-500', { width: 500 }, 'thumbs'))).status).toBe(201);
    expect((await t.http().post('/api/tasks').set(acme.admin).send(task('thumb-5000', { width: 5000 }, 'thumbs'))).body.errors).toEqual([{ field: 'params.width', reason: 'must be <= 1000' }]);
    await declare('acme', 'broken', { resize: { type: 'not-a-type' } });
    const saved = await t.http().post('/api/tasks').set(acme.admin).send(task('unchecked', { width: 0 }, 'broken'));
    expect(saved.status).toBe(201);
    expect(saved.body.warnings).toEqual([{ field: 'params', reason: expect.stringMatching(/^not checked: the params schema the executors declare for "resize" cannot be used \(schema is invalid/) }]);
  });

  it("keeps each schema to itself: another tenant's schema with the same $id neither clashes with it nor answers its $ref", async () => {
    const id = 'https://schemas.example/resize.json';
    await declare('globex', 'shared-ids', { resize: { $id: id, type: 'object', required: ['fromGlobex'] } });
    await declare('acme', 'shared-ids', { resize: { $id: id, type: 'object', required: ['width'] } });
    await declare('acme', 'refs', { resize: { $ref: id } });
    // globex's schema is compiled first…
    expect((await t.http().post('/api/tasks').set(globex.admin).send(task('g-ids', {}, 'shared-ids'))).body.errors).toEqual([{ field: 'params.fromGlobex', reason: "is required by the handler's params schema" }]);
    // …and acme's, with the same $id, is still its own,
    expect((await t.http().post('/api/tasks').set(acme.admin).send(task('a-ids', {}, 'shared-ids'))).body.errors).toEqual([{ field: 'params.width', reason: "is required by the handler's params schema" }]);
    // and a $ref to that $id finds nothing of either tenant: the schema cannot be used, the task saves unchecked with a warning.
    const unresolved = await t.http().post('/api/tasks').set(acme.admin).send(task('a-refs', {}, 'refs'));
    expect(unresolved.status).toBe(201);
    expect(unresolved.body.warnings).toEqual([{ field: 'params', reason: expect.stringContaining("can't resolve reference") }]);
  });

  it('leaves `format` unchecked (an annotation), and says nothing about it on stderr', async () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      await declare('acme', 'mailer', { resize: { type: 'object', properties: { to: { type: 'string', format: 'email' }, width: { type: 'integer' } } } });
      const saved = await t.http().post('/api/tasks').set(acme.admin).send(task('mail-anyone', { to: 'not an address', width: 3 }, 'mailer'));
      expect(saved.status).toBe(201);
      expect(saved.body.warnings).toEqual([]);
      expect((await t.http().post('/api/tasks').set(acme.admin).send(task('mail-wide', { to: 'a@b.example', width: 'wide' }, 'mailer'))).body.errors).toEqual([{ field: 'params.width', reason: 'must be integer' }]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('runs patterns in linear time, refuses a check that would take too long naming params, and says which pattern it cannot run', async () => {
    await declare('acme', 'redos', { resize: { type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC_PATTERN } } } });
    const redos = await t.http().post('/api/tasks').set(acme.admin).send(task('redos', { s: CATASTROPHIC_INPUT }, 'redos'));
    expect(redos.body.errors).toEqual([{ field: 'params.s', reason: `must match pattern "${CATASTROPHIC_PATTERN}"` }]);
    expect((await t.http().post('/api/tasks').set(acme.admin).send(task('redos-ok', { s: 'aaaa' }, 'redos'))).status).toBe(201);

    // Unbounded: ~6 s on the event loop and 300 MB of errors.
    // Titled: a schema of its own text, not the one the next test has globex overrun (overruns are remembered by text).
    await declare('acme', 'hostile', { resize: { ...nestedAnyOf(22), title: 'acme' } });
    // Cut at its 50 ms deadline (the reason says so); that the loop is not held meanwhile is the next test's.
    const hostile = await t.http().post('/api/tasks').set(acme.admin).send(task('hostile', { s: {} }, 'hostile'));
    expect(hostile.status).toBe(400);
    expect(hostile.body.errors).toEqual([{ field: 'params', reason: "the handler's params schema is too costly to check: checking these params took longer than 50 ms" }]);
    expect(hostile.text.length).toBeLessThan(1_000);

    await declare('acme', 'backref', { resize: { type: 'object', properties: { s: { type: 'string', pattern: '^(a)\\1$' } } } });
    const unchecked = await t.http().post('/api/tasks').set(acme.admin).send(task('backref', { s: 'ab' }, 'backref'));
    expect(unchecked.status).toBe(201);
    expect(unchecked.body.warnings).toEqual([
      {
        field: 'params',
        reason: expect.stringContaining('cannot be used (pattern "^(a)\\\\1$" is not supported: patterns run on RE2, in linear time, which has no backreferences or lookaround'),
      },
    ]);
  });

  it("answers another tenant's reads and saves while one tenant saves tasks against hostile schemas", async () => {
    await declare('globex', 'hostile', { resize: nestedAnyOf(22) });
    // The first overrun of a schema costs the shared worker a restart, which checks queued behind it
    // wait for (50–200 ms built); from then on the schema's checks have a worker of their own.
    expect((await t.http().post('/api/tasks').set(globex.admin).send(task('hostile-first', { s: {} }, 'hostile'))).status).toBe(400);
    expect((await t.http().post('/api/tasks').set(acme.admin).send(task('prompt-first', { width: 1 }))).status).toBe(201);
    const saves = Promise.all(Array.from({ length: 8 }, (_, i) => t.http().post('/api/tasks').set(globex.admin).send(task(`hostile-${i}`, { s: {} }, 'hostile'))));
    let settled = false;
    void saves.then(() => (settled = true));
    // A read, and a save (checked against acme's schema), answered while globex's saves are in line:
    // neither waits for globex's checks to end, nor for a transaction held meanwhile. How long they
    // take beside a hostile tenant is a figure, not a test's: `npm run bench -- params-check`.
    for (let i = 0; !settled || i < 6; i++) {
      if (i % 2 === 0) expect((await t.http().get('/api/tasks').set(acme.viewer)).status).toBe(200);
      else expect((await t.http().post('/api/tasks').set(acme.admin).send(task(`prompt-${i}`, { width: i }))).status).toBe(201);
    }
    expect((await saves).map((r) => [r.status, r.body.errors?.[0]?.field])).toEqual(Array.from({ length: 8 }, () => [400, 'params']));
  });
});
