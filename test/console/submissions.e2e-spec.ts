import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWakeup } from '@baton/messaging';
import { AuditRecordEntity, RunEntity, RunLogEntity } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { BatonApiError, BatonClient } from '@baton/executor-sdk/client';
import { insertExecutor, listenOnLoopback, seedOperator, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

/**
 * Runs submitted through the API (apps/console/src/submissions): a trigger with an idempotency key,
 * batches each with its own result or all-or-nothing, the group commit of concurrent triggers,
 * and one tenant's submissions never touching another's tasks.
 */
describe.each(TEST_DATABASES)('submissions through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let task: number;
  let other: number;
  let globexTask: number;
  const wakeups: RunWakeup[] = [];

  const runsOf = (taskId: number) => db.dataSource.getRepository(RunEntity).find({ where: { taskId }, order: { id: 'ASC' } });
  const auditOf = (action: string) => db.dataSource.getRepository(AuditRecordEntity).find({ where: { action }, order: { id: 'ASC' } });

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: (w) => wakeups.push(w), cancelled: () => undefined } });
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    const executor = await insertExecutor(db.dataSource, 'acme', 'images');
    const schema = { type: 'object', required: ['width'], properties: { width: { type: 'integer', minimum: 1 } } };
    await db.dataSource.query('UPDATE executors SET handlers = ?, handler_schemas = ?, heartbeat_at = ? WHERE id = ?', [JSON.stringify(['resize']), JSON.stringify({ resize: schema }), T0, executor.id]);
    const create = async (who: SeededTenant, name: string, handler: string) => {
      const res = await t.http().post('/api/tasks').set(who.admin).send({ name, executorApp: 'images', handler, trigger: { kind: 'MANUAL' }, params: { width: 10 } });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    task = await create(acme, 'resize', 'resize');
    other = await create(acme, 'report', 'report');
    globexTask = await create(globex, 'theirs', 'report');
  });
  afterAll(() => t?.close());

  it('makes one run per Idempotency-Key and task however often a trigger is sent: 201, then 200 with the same run', async () => {
    const send = () => t.http().post(`/api/tasks/${task}/trigger`).set({ ...acme.adminKey, 'idempotency-key': 'order-42:resize' }).send({ params: { width: 7 } });
    const first = await send();
    expect(first.status).toBe(201);
    // Meanwhile the run went to an executor, which logged a line: a repeat answers the run as it is now, as GET shows it.
    const [executor] = await db.dataSource.query("SELECT id FROM executors WHERE tenant_id = 'acme'");
    await db.dataSource.query("UPDATE runs SET state = 'ACCEPTED', executor_id = ? WHERE id = ?", [executor.id, first.body.id]);
    await db.dataSource.getRepository(RunLogEntity).insert({ tenantId: 'acme', runId: first.body.id, attempt: 1, at: T0, level: 'INFO', message: 'resizing' });
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body).toEqual((await t.http().get(`/api/runs/${first.body.id}`).set(acme.adminKey)).body);
    expect(again.body).toMatchObject({ state: 'ACCEPTED', executor: { id: Number(executor.id) }, logs: [{ message: 'resizing' }] });
    expect((await runsOf(task)).filter((r) => r.fireKey === 'k:order-42:resize')).toHaveLength(1);
    // The same key on another task is another run.
    const elsewhere = await t.http().post(`/api/tasks/${other}/trigger`).set({ ...acme.adminKey, 'idempotency-key': 'order-42:resize' }).send({});
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it('writes each run from the task as it is now, though the console keeps what it read for the next triggers: changed → the new definition, deleted → 404', async () => {
    const res = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'kept', executorApp: 'images', handler: 'report', trigger: { kind: 'MANUAL' }, priority: 1 });
    expect(res.status).toBe(201);
    const kept = res.body.id as number;
    const trigger = () => t.http().post(`/api/tasks/${kept}/trigger`).set(acme.adminKey).send({});
    expect((await trigger()).status).toBe(201);
    expect((await t.http().patch(`/api/tasks/${kept}`).set(acme.admin).send({ priority: 7, params: { from: 'the edit' } })).status).toBe(200);
    expect((await trigger()).status).toBe(201);
    expect((await runsOf(kept)).map((r) => [r.priority, r.params])).toEqual([
      [1, {}],
      [7, { from: 'the edit' }],
    ]);
    expect((await t.http().delete(`/api/tasks/${kept}`).set(acme.admin)).status).toBe(204);
    const gone = await trigger();
    expect(gone.status).toBe(404);
  });

  it("writes a run in its tenant's engine group as it is now: a kept task does not outlive its tenant's move to another group", async () => {
    const operator = await seedOperator(t, db.dataSource, 'mover');
    expect((await t.http().post('/api/operator/engine-groups').set(operator).send({ name: 'moved-to' })).status).toBe(201);
    const trigger = async () => (await t.http().post(`/api/tasks/${other}/trigger`).set(acme.adminKey).send({})).body.id as number;
    await trigger(); // its task now kept
    expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'moved-to', allowUnserved: true })).status).toBe(200);
    try {
      const after = await db.dataSource.getRepository(RunEntity).findOneByOrFail({ id: await trigger() });
      expect(after.engineGroup).toBe('moved-to');
    } finally {
      expect((await t.http().patch('/api/operator/tenants/acme').set(operator).send({ engineGroup: 'default', allowUnserved: true })).status).toBe(200);
    }
  });

  it("queues a trigger's audit record for a webhook channel taking AUDIT from at most a second after the channel is saved", async () => {
    const initech = await seedTenant(t, db.dataSource, 'initech');
    const made = await t.http().post('/api/tasks').set(initech.admin).send({ name: 'audited', executorApp: 'images', handler: 'report', trigger: { kind: 'MANUAL' } });
    expect(made.status).toBe(201);
    const trigger = async () => (await t.http().post(`/api/tasks/${made.body.id}/trigger`).set(initech.adminKey).send({})).body.id as number;
    const deliveries = async () => (await db.dataSource.query('SELECT audit_id FROM webhook_deliveries WHERE tenant_id = ?', ['initech'])) as Array<{ audit_id: unknown }>;
    const auditIdOf = async (runId: number) => (await auditOf('task.trigger')).filter((r) => JSON.stringify(r.after).includes(`"runId":${runId}`)).map((r) => Number(r.id));
    await trigger(); // the console now keeps: no channel of initech takes AUDIT
    const hook = await t.http().post('/api/webhooks').set(initech.admin).send({ name: 'audit-feed', url: 'https://hooks.example.com/audit', alarmTypes: ['AUDIT'] });
    expect(hook.status).toBe(201);
    const within = await trigger();
    t.clock.advance(1_000);
    const after = await trigger();
    const queued = (await deliveries()).map((d) => Number(d.audit_id));
    expect(queued).not.toContain((await auditIdOf(within))[0]);
    expect(queued).toContain((await auditIdOf(after))[0]);
  });

  it('refuses a bad Idempotency-Key (400 naming the header it came in) and writes nothing', async () => {
    const before = (await runsOf(task)).length;
    const bad = await t.http().post(`/api/tasks/${task}/trigger`).set({ ...acme.adminKey, 'idempotency-key': 'has space' }).send({});
    expect(bad.status).toBe(400);
    // The header, as the client sent it: a trigger's body has no idempotencyKey (a batch item's does, and is named so).
    expect(bad.body.errors).toEqual([{ field: 'idempotency-key', reason: expect.stringContaining('1 to 62 characters') }]);
    const long = await t.http().post(`/api/tasks/${task}/trigger`).set({ ...acme.adminKey, 'Idempotency-Key': 'k'.repeat(63) }).send({});
    expect(long.body.errors).toEqual([{ field: 'idempotency-key', reason: expect.stringContaining('1 to 62 characters') }]);
    expect(await runsOf(task)).toHaveLength(before);
  });

  it('refuses params with a number a JSON reader rounds (past 2^53 − 1), naming its path, and writes nothing', async () => {
    const before = (await runsOf(task)).length;
    // Sent as text: the console's reader gets 12345678901234567000, which it must not store for the customer's 12345678901234567890.
    const bad = await t.http().post(`/api/tasks/${task}/trigger`).set({ ...acme.adminKey, 'content-type': 'application/json' }).send('{"params":{"width":1,"customer":{"id":12345678901234567890}}}');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'params.customer.id', reason: expect.stringContaining('send it as a string') }]);
    expect(await runsOf(task)).toHaveLength(before);
  });

  it('writes a batch each submission on its own: results in order, params checked against their schema, another tenant’s task a 404; one audit record', async () => {
    const auditsBefore = (await auditOf('run.submit-batch')).length;
    wakeups.length = 0;
    const res = await t
      .http()
      .post('/api/runs/batch')
      .set(acme.adminKey)
      .send({ runs: [{ taskId: task, params: { width: 3 } }, { taskId: task, params: { width: 0 } }, { taskId: globexTask }, { taskId: other, params: { n: 1 }, idempotencyKey: 'b-1' }, { taskId: other, params: { n: 2 }, idempotencyKey: 'b-1' }] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 404, 201, 200]);
    expect(res.body.results[1].error.errors).toEqual([expect.objectContaining({ field: 'runs[1].params.width' })]);
    expect(res.body).toMatchObject({ created: 2, existing: 1, refused: 2 });
    expect(res.body.results[3].run.id).toBe(res.body.results[4].run.id);
    // The key's run is its first item's, as stored and as the engine is woken with: it dispatches
    // that row without reading it back (a later item's params went to the handler).
    expect((await t.http().get(`/api/runs/${res.body.results[3].run.id}`).set(acme.admin)).body.params).toEqual({ n: 1 });
    expect(wakeups.flatMap((w) => w.runs ?? []).filter((r) => r.id === res.body.results[3].run.id).map((r) => r.params)).toEqual(['{"n":1}']);
    expect(res.body.results[0].run).toMatchObject({ taskId: task, state: 'PENDING', cause: 'MANUAL' });
    expect((await runsOf(globexTask)).length).toBe(0);
    const audits = await auditOf('run.submit-batch');
    expect(audits.length).toBe(auditsBefore + 1);
    // The engines hear of the two new runs, named, once committed.
    expect(wakeups.flatMap((w) => w.runIds ?? []).sort()).toEqual([res.body.results[0].run.id, res.body.results[3].run.id].sort());
  });

  it('writes an atomic batch all or nothing: one refused submission refuses it, naming every refused item', async () => {
    const before = (await runsOf(task)).length;
    const res = await t
      .http()
      .post('/api/runs/batch')
      .set(acme.admin)
      .send({ atomic: true, runs: [{ taskId: task, params: { width: 5 } }, { taskId: task, params: { width: -1 } }, { taskId: 999_999 }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'runs[1].params.width' }), { field: 'runs[2].taskId', reason: 'is not a task of this tenant' }]);
    expect(await runsOf(task)).toHaveLength(before);
    const ok = await t.http().post('/api/runs/batch').set(acme.admin).send({ atomic: true, runs: [{ taskId: task }, { taskId: other }] });
    expect(ok.status).toBe(200);
    expect(ok.body.created).toBe(2);
  });

  it('refuses params nested deeper than 32 levels naming them: a trigger, a batch item alone, an atomic batch whole', async () => {
    const nested = (levels: number): object => (levels === 1 ? { leaf: 1 } : { a: nested(levels - 1) });
    const before = (await runsOf(other)).length;
    const trigger = await t.http().post(`/api/tasks/${other}/trigger`).set(acme.admin).send({ params: nested(300) });
    expect(trigger.status).toBe(400);
    expect(trigger.body.errors).toEqual([{ field: 'params', reason: 'nested deeper than 32 levels' }]);
    const batch = await t.http().post('/api/runs/batch').set(acme.admin).send({ runs: [{ taskId: other }, { taskId: other, flowParams: nested(33) }] });
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400]);
    expect(batch.body.results[1].error.errors).toEqual([{ field: 'runs[1].flowParams', reason: 'nested deeper than 32 levels' }]);
    const atomic = await t.http().post('/api/runs/batch').set(acme.admin).send({ atomic: true, runs: [{ taskId: other }, { taskId: other, params: nested(300) }] });
    expect(atomic.status).toBe(400);
    expect(atomic.body.errors).toEqual([{ field: 'runs[1].params', reason: 'nested deeper than 32 levels' }]);
    expect(await runsOf(other)).toHaveLength(before + 1);
  });

  it('names every problem of a batch in one answer: a body refused whole names its items\' own values too; an item names its task, key and schema together', async () => {
    const before = (await runsOf(task)).length;
    const KEY_RULE = 'must be 1 to 62 characters of A-Z a-z 0-9 - _ . : ~';
    const bad = { taskId: task, params: { width: 0 }, idempotencyKey: 'has space' };
    // Not a batch (a taskId that is not one): the answer names the other items' keys and params' shape as well.
    const whole = await t.http().post('/api/runs/batch').set(acme.admin).send({ runs: [{ taskId: 'x' }, bad, { taskId: task, flowParams: { blob: 'x'.repeat(64_001) } }] });
    expect(whole.status).toBe(400);
    expect(whole.body.errors).toEqual([
      { field: 'runs[0].taskId', reason: 'must be a task id (a positive integer)' },
      { field: 'runs[1].idempotencyKey', reason: KEY_RULE },
      { field: 'runs[2].flowParams', reason: expect.stringContaining('64000') },
    ]);
    // A batch: each item's answer names its key, its params against the schema and its unknown task at once.
    const items = await t.http().post('/api/runs/batch').set(acme.admin).send({ runs: [bad, { taskId: 999_999, idempotencyKey: 'has space' }, { taskId: 999_998 }] });
    expect(items.status).toBe(200);
    expect(items.body.results.map((r: { status: number }) => r.status)).toEqual([400, 400, 404]);
    expect(items.body.results[0].error.errors).toEqual([{ field: 'runs[0].idempotencyKey', reason: KEY_RULE }, expect.objectContaining({ field: 'runs[0].params.width' })]);
    expect(items.body.results[1].error.errors).toEqual([{ field: 'runs[1].taskId', reason: 'is not a task of this tenant' }, { field: 'runs[1].idempotencyKey', reason: KEY_RULE }]);
    const atomic = await t.http().post('/api/runs/batch').set(acme.admin).send({ atomic: true, runs: [bad, { taskId: 999_998 }] });
    expect(atomic.body.errors.map((e: { field: string }) => e.field)).toEqual(['runs[0].idempotencyKey', 'runs[0].params.width', 'runs[1].taskId']);
    // A trigger too: its key and its params against the schema in one answer.
    const trigger = await t.http().post(`/api/tasks/${task}/trigger`).set({ ...acme.admin, 'idempotency-key': 'has space' }).send({ params: { width: 0 } });
    expect(trigger.body.errors.map((e: { field: string }) => e.field)).toEqual(['idempotency-key', 'params.width']);
    expect(await runsOf(task)).toHaveLength(before);
  });

  it('refuses a body that is not a batch, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'runs'],
      [{ runs: [] }, 'runs'],
      [{ runs: Array.from({ length: 1001 }, () => ({ taskId: task })) }, 'runs'],
      [{ runs: [{ taskId: 'x' }] }, 'runs[0].taskId'],
      [{ runs: [{ taskId: task, extra: 1 }] }, 'runs[0].extra'],
      [{ runs: [7] }, 'runs[0]'],
      [{ runs: [{ taskId: task }], atomic: 'yes' }, 'atomic'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http().post('/api/runs/batch').set(acme.admin).send(body as object);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(await t.http().post('/api/runs/batch').set(acme.viewer).send({ runs: [{ taskId: task }] })).toMatchObject({ status: 403 });
  });

  it('answers concurrent triggers (written together as they arrive) each with its own run, params and audit record', async () => {
    const before = (await auditOf('task.trigger')).length;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.http().post(`/api/tasks/${task}/trigger`).set(acme.adminKey).send({ params: { width: i + 1 } })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const ids = answers.map((a) => a.body.id as number);
    expect(new Set(ids).size).toBe(20);
    const runs = await db.dataSource.getRepository(RunEntity).findBy(ids.map((id) => ({ id })));
    expect(runs.map((r) => (r.params as { width: number }).width).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const records = (await auditOf('task.trigger')).slice(before);
    expect(records.map((r) => (r.after as { runId: number }).runId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(records.every((r) => r.actorApiKeyId !== null)).toBe(true);
  });

  it.runIf(kind === 'mysql')('a task deleted while its submission is being written: 404, and no run of a task that is gone', async () => {
    const created = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'short-lived', executorApp: 'images', handler: 'report', trigger: { kind: 'MANUAL' } });
    expect(created.status).toBe(201);
    const doomed = created.body.id as number;
    // A deletion that holds the task's row (as TaskRemovalService does, FOR UPDATE first) and has not committed.
    const deletion = db.dataSource.createQueryRunner();
    await deletion.startTransaction();
    try {
      await deletion.query('SELECT id FROM tasks WHERE id = ? FOR UPDATE', [doomed]);
      await deletion.query('DELETE FROM tasks WHERE id = ?', [doomed]);
      // The submission reads the task as committed (still there), then takes its lock inside its own
      // transaction: seen in the process list, that statement cannot finish before the deletion commits.
      const answer = t.http().post(`/api/tasks/${doomed}/trigger`).set(acme.adminKey).send({}).then((res) => res);
      const locking = "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'SELECT id, version, %FROM tasks WHERE tenant_id = %LOCK IN SHARE MODE'";
      while (Number((await db.dataSource.query(locking))[0].n) === 0) await new Promise((r) => setImmediate(r));
      await deletion.commitTransaction();
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(await runsOf(doomed)).toEqual([]);
    } finally {
      if (deletion.isTransactionActive) await deletion.rollbackTransaction();
      await deletion.release();
    }
  });

  it('submits through the Node SDK client: a trigger with its key (made, then found), a batch, and a refusal that names the field', async () => {
    const client = new BatonClient({ url: await listenOnLoopback(t), apiKey: acme.adminKey['X-API-Key'] });
    try {
      const first = await client.trigger(task, { params: { width: 9 }, idempotencyKey: 'sdk-1' });
      expect(first.created).toBe(true);
      expect((await client.trigger(task, { params: { width: 9 }, idempotencyKey: 'sdk-1' })).run.id).toBe(first.run.id);
      const batch = await client.submitBatch([{ taskId: await client.taskId('report') }, { taskId: task, params: { width: 2 } }]);
      expect(batch.results.map((r) => r.status)).toEqual([201, 201]);
      expect(batch.results[0].run?.taskId).toBe(other);
      const refused = await client.trigger(task, { params: { width: 0 } }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(BatonApiError);
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'params.width' })] });
      await expect(client.taskId('no-such-task')).rejects.toMatchObject({ status: 404 });
    } finally {
      client.close();
    }
  });

  it("finds a task by name through the SDK client past the first page of names containing it, and names the console's refusal of its key", async () => {
    // Sorted by name, 500 `nightly-sync-…` come before `sync`: the search for `sync` has it on its second page.
    const tasks = Array.from({ length: 500 }, (_, i) => ({ name: `nightly-sync-${i}`, executorApp: 'images', handler: 'report', trigger: { kind: 'MANUAL' } }));
    expect((await t.http().post('/api/tasks/batch').set(globex.admin).send({ tasks: [...tasks, { ...tasks[0], name: 'sync' }] })).status).toBe(201);
    const url = await listenOnLoopback(t);
    const client = new BatonClient({ url, apiKey: globex.adminKey['X-API-Key'] });
    const stranger = new BatonClient({ url, apiKey: 'bk_not-a-key' });
    try {
      const [sync] = await db.dataSource.query('SELECT id FROM tasks WHERE tenant_id = ? AND name = ?', ['globex', 'sync']);
      expect(await client.taskId('sync')).toBe(Number(sync.id));
      await expect(client.taskId('sync-')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
      await expect(stranger.taskId('sync')).rejects.toMatchObject({ status: 401 });
    } finally {
      client.close();
      stranger.close();
    }
  });

  it('sends runs submitted one at a time together (client.submit): each answered or refused on its own, in fewer requests than runs', async () => {
    const client = new BatonClient({ url: await listenOnLoopback(t), apiKey: acme.adminKey['X-API-Key'] });
    try {
      const requestsBefore = (await auditOf('run.submit-batch')).length;
      const deep = (depth: number): unknown => (depth === 0 ? 1 : { d: deep(depth - 1) });
      const submissions = [
        ...Array.from({ length: 200 }, (_, i) => client.submit({ taskId: task, params: { width: i + 1 }, idempotencyKey: `co-${i}` })),
        client.submit({ taskId: task, params: { width: 0 } }),
        client.submit({ taskId: globexTask }),
        // Params nested past 32 levels: its own 400 (naming params), beside the items it went with.
        client.submit({ taskId: other, params: deep(33) as Record<string, unknown> }),
        // A body nested past the console's bound (512 levels) is refused whole, before anything is written: sent again in halves down to it.
        client.submit({ taskId: other, params: deep(600) as Record<string, unknown> }),
        client.submit({ taskId: task, params: { width: 7 }, idempotencyKey: 'co-6' }),
      ];
      const settled = await Promise.allSettled(submissions);
      const made = settled.slice(0, 200).map((s) => (s.status === 'fulfilled' ? s.value : s.reason));
      expect(made.every((m) => 'created' in m && m.created)).toBe(true);
      expect(made.map((m) => m.run.taskId)).toEqual(made.map(() => task));
      expect(new Set(made.map((m) => m.run.id)).size).toBe(200);
      const [width, foreign, tooDeep, bodyTooDeep, again] = settled.slice(200);
      expect(width).toMatchObject({ status: 'rejected', reason: { status: 400, code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ field: 'params.width' })] } });
      expect(foreign).toMatchObject({ status: 'rejected', reason: { status: 404 } });
      expect(tooDeep).toMatchObject({ status: 'rejected', reason: { status: 400, errors: [{ field: 'params', reason: 'nested deeper than 32 levels' }] } });
      expect(bodyTooDeep).toMatchObject({ status: 'rejected', reason: { status: 400, errors: [{ field: 'body', reason: 'JSON nested deeper than 512 levels' }] } });
      // The key's first run answers again, not made twice.
      expect(again).toMatchObject({ status: 'fulfilled', value: { created: false, run: { id: made[6].run.id } } });
      const params = (await runsOf(task)).filter((r) => made.some((m) => m.run.id === r.id)).map((r) => (r.params as { width: number }).width);
      expect(params.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      // Together: one audit record per request, far fewer than the runs.
      const requests = (await auditOf('run.submit-batch')).length - requestsBefore;
      expect(requests).toBeGreaterThan(0);
      expect(requests).toBeLessThan(20);
    } finally {
      client.close();
    }
  });
});
