import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWakeup } from '@baton/messaging';
import { AuditRecordEntity, EventEntity, RunEntity } from '@baton/persistence';
import { HOUR_MS } from '@baton/domain';
import { purgeTenant } from '../../apps/engine/src/history/purge-pass';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { untilLockWaits } from '../support/lock-waits';
import { BatonApiError, BatonClient } from '@baton/executor-sdk/client';
import { MAX_EMIT_RUNS } from '../../apps/console/src/events/event';
import { EventsService } from '../../apps/console/src/events/events.service';
import { listenOnLoopback, seedTenant, startConsole, T0, type ConsoleTestApp, type SeededTenant } from './console-test-kit';

/**
 * Events that start runs (apps/console/src/events): an event starts the tenant's tasks whose
 * EVENT trigger it matches, with projected params, through the submissions lane; an event that
 * matches nothing is kept; a repeated idempotency key answers the first event; a batch answers
 * each event; tenants see and start only their own; retention deletes old events.
 */
const DAY_MS = 24 * HOUR_MS;

describe.each(TEST_DATABASES)('events through the console API on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let gold: number;
  let all: number;
  let theirs: number;
  const wakeups: RunWakeup[] = [];

  const runsOf = (taskId: number) => db.dataSource.getRepository(RunEntity).find({ where: { taskId }, order: { id: 'ASC' } });
  const emit = (who: SeededTenant, body: object) => t.http().post('/api/events').set(who.adminKey).send(body);
  const order = (tier: string, extra: object = {}) => ({ customer: { id: 'c-1', tier }, order: { id: 'o-9', total: 12.5 }, ...extra });
  const create = async (who: SeededTenant, name: string, trigger: object) => {
    const res = await t.http().post('/api/tasks').set(who.admin).send({ name, executorApp: 'shop', handler: 'sync', trigger, params: { from: 'task' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  /**
   * Two requests under one idempotency key, one event named `<prefix>.a` and one `<prefix>.b`, each
   * name a task of its own: exactly one event is stored, and the runs of its task alone (the other
   * request starts nothing, not even its own task's run that no event would list), both answered
   * with that event and its runs.
   */
  const expectOneEventOfKey = async (key: string, prefix: string, tasks: { a: number; b: number }, answers: Array<{ status: number; body: { id: number; name: string; runIds: number[]; created: boolean } }>) => {
    const stored = await db.dataSource.getRepository(EventEntity).findBy({ tenantId: 'acme', idempotencyKey: key });
    expect(stored).toHaveLength(1);
    const [event] = stored;
    const keyed = await db.dataSource.getRepository(RunEntity).findBy({ tenantId: 'acme', fireKey: `e:${key}` });
    expect(keyed.map((r) => r.taskId)).toEqual([event.name === `${prefix}.a` ? tasks.a : tasks.b]);
    expect(event.runIds).toEqual(keyed.map((r) => r.id));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
    for (const answer of answers) expect(answer.body).toMatchObject({ id: event.id, name: event.name, runIds: event.runIds, created: answer.status === 201 });
  };

  beforeAll(async () => {
    t = await startConsole(db.dataSource, T0, { wakeups: { wake: (w) => wakeups.push(w), cancelled: () => undefined } });
    acme = await seedTenant(t, db.dataSource, 'acme');
    globex = await seedTenant(t, db.dataSource, 'globex');
    gold = await create(acme, 'sync-gold', {
      kind: 'EVENT',
      event: 'order.paid',
      filter: { 'customer.tier': 'gold', 'order.id': { exists: true } },
      params: { customerId: 'customer.id', orderId: 'order.id', coupon: 'order.coupon' },
    });
    all = await create(acme, 'ledger', { kind: 'EVENT', event: 'order.paid' });
    theirs = await create(globex, 'theirs', { kind: 'EVENT', event: 'order.paid' });
  });
  afterAll(() => t?.close());

  it('keeps the EVENT trigger on the task, with its defaults, and refuses a bad one naming the field', async () => {
    const got = await t.http().get(`/api/tasks/${all}`).set(acme.viewer);
    expect(got.body.trigger).toEqual({ kind: 'EVENT', event: 'order.paid', filter: {}, params: null });
    expect(got.body.nextFireAt).toBeNull();
    const bad = await t.http().post('/api/tasks').set(acme.admin).send({ name: 'bad', executorApp: 'shop', handler: 'sync', trigger: { kind: 'EVENT', event: 'has space', filter: { 'a..b': 1, ok: [1] }, params: { p: '' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['trigger.event', 'trigger.filter.a..b', 'trigger.filter.ok', 'trigger.params.p']);
  });

  it('carries the EVENT trigger through tasks as code: export, plan of the same file (nothing to do), plan of a changed filter', async () => {
    const exported = await t.http().get('/api/config/export').set(acme.adminKey);
    expect(exported.status).toBe(200);
    const file = exported.text;
    expect(file).toContain('kind: EVENT');
    expect(file).toContain('event: order.paid');
    expect(file).toContain('customer.tier: gold');
    const same = await t.http().post('/api/config/plan').set(acme.admin).send({ file });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.changes).toEqual([]);
    const changed = await t.http().post('/api/config/plan').set(acme.admin).send({ file: file.replace('customer.tier: gold', 'customer.tier: platinum') });
    expect(changed.body.changes).toEqual([expect.objectContaining({ kind: 'task', name: 'sync-gold', action: 'update' })]);
  });

  it('starts the matching tasks with projected params in the event’s transaction, wakes the engines, audits once', async () => {
    wakeups.length = 0;
    const res = await emit(acme, { name: 'order.paid', payload: order('gold') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'order.paid', created: true, refusedRuns: [], idempotencyKey: null });
    expect(res.body.runs).toHaveLength(2);
    // This event's runs (other tests, in any order, start runs of the same tasks).
    const started = (taskId: number) => runsOf(taskId).then((runs) => runs.filter((r) => res.body.runIds.includes(r.id)));
    const [goldRun] = await started(gold);
    expect(goldRun).toMatchObject({ cause: 'EVENT', state: 'PENDING', params: { customerId: 'c-1', orderId: 'o-9' } });
    const [ledgerRun] = await started(all);
    expect(ledgerRun.params).toEqual(order('gold'));
    expect(res.body.runIds.sort()).toEqual([goldRun.id, ledgerRun.id].sort());
    expect(wakeups.flatMap((w) => w.runIds ?? []).sort()).toEqual([goldRun.id, ledgerRun.id].sort());
    expect(await started(theirs)).toHaveLength(0);
    const stored = await db.dataSource.getRepository(EventEntity).findOneByOrFail({ id: res.body.id });
    expect(stored.runIds.sort()).toEqual(res.body.runIds.sort());
    const audit = await db.dataSource.getRepository(AuditRecordEntity).find({ where: { action: 'event.emit', objectId: String(res.body.id) } });
    expect(audit).toHaveLength(1);
    const detail = await t.http().get(`/api/events/${res.body.id}`).set(acme.viewer);
    expect(detail.body.runs.map((r: { taskName: string }) => r.taskName).sort()).toEqual(['ledger', 'sync-gold']);
  });

  it('does not start a task whose filter the payload fails; an event that matches nothing is kept and listed', async () => {
    // A tier no other test sends, so the search below finds this event alone in any order.
    const bronze = await emit(acme, { name: 'order.paid', payload: order('bronze') });
    expect(bronze.status).toBe(201);
    expect(bronze.body.runs.map((r: { taskId: number }) => r.taskId)).toEqual([all]);
    const noOrder = await emit(acme, { name: 'order.paid', payload: { customer: { tier: 'gold' } } });
    expect(noOrder.body.runs.map((r: { taskId: number }) => r.taskId)).toEqual([all]);
    const nobody = await emit(acme, { name: 'nobody.listens', payload: { x: 1 } });
    expect(nobody.status).toBe(201);
    expect(nobody.body.runIds).toEqual([]);
    const list = await t.http().get('/api/events?name=nobody.listens').set(acme.viewer);
    expect(list.body.items.map((e: { id: number }) => e.id)).toEqual([nobody.body.id]);
    const search = await t.http().get('/api/events?q=bronze').set(acme.viewer);
    expect(search.body.items.map((e: { id: number }) => e.id)).toEqual([bronze.body.id]);
  });

  it('stores an event once per idempotency key: a repeat answers 200 with the first event and its runs, starting nothing', async () => {
    const body = { name: 'order.paid', payload: order('gold'), idempotencyKey: 'pay-77' };
    const first = await emit(acme, body);
    expect(first.status).toBe(201);
    const before = (await runsOf(gold)).length;
    const again = await emit(acme, { ...body, payload: order('silver') });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, created: false, runIds: first.body.runIds });
    expect(again.body.runs).toHaveLength(2);
    expect(await runsOf(gold)).toHaveLength(before);
    // Another tenant's same key is its own event.
    const theirsToo = await emit(globex, body);
    expect(theirsToo.status).toBe(201);
    expect(theirsToo.body.id).not.toBe(first.body.id);
  });

  it('stores a keyed event once when its repeats arrive together (concurrent writes of the lane)', async () => {
    const body = { name: 'order.paid', payload: order('gold'), idempotencyKey: 'burst-1' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => emit(acme, body)));
    // One stored it (201), the others are its repeats (200), all with the one event and its runs.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(new Set(answers.map((a) => JSON.stringify(a.body.runIds))).size).toBe(1);
    expect(answers[0].body.runIds).toHaveLength(2);
    expect(await db.dataSource.getRepository(EventEntity).countBy({ tenantId: 'acme', idempotencyKey: 'burst-1' })).toBe(1);
    expect((await runsOf(gold)).filter((r) => r.fireKey === 'e:burst-1')).toHaveLength(1);
    expect((await runsOf(all)).filter((r) => r.fireKey === 'e:burst-1')).toHaveLength(1);
  });

  it('starts only the first event’s runs when two requests written together carry one key with events that match different tasks', async () => {
    const tasks = { a: await create(acme, 'on-together-a', { kind: 'EVENT', event: 'together.a' }), b: await create(acme, 'on-together-b', { kind: 'EVENT', event: 'together.b' }) };
    // Sent in one turn of the event loop, both are matched in one read (neither key stored yet) and
    // written in one transaction of the lane.
    const events = t.app.get(EventsService);
    const answers = await Promise.all(['a', 'b'].map((name) => events.emitOne('acme', { name: `together.${name}`, payload: { n: name }, idempotencyKey: 'together-1' })));
    await expectOneEventOfKey('together-1', 'together', tasks, answers.map((body) => ({ status: body.created ? 201 : 200, body })));
    expect(answers.map((a) => a.name)).toEqual(['together.a', 'together.a']);
  });

  it('lists the COALESCING run a keyed event joins (a task that debounces per key), on the stored event too; its repeat written with it joins nothing', async () => {
    const res = await t.http().post('/api/tasks').set(acme.admin).send({
      name: 'coalesced',
      executorApp: 'shop',
      handler: 'sync',
      trigger: { kind: 'EVENT', event: 'coalesce.x', params: { customerId: 'customer.id', v: 'v' } },
      debounce: { key: 'customerId', quietMs: 60_000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const opened = await emit(acme, { name: 'coalesce.x', payload: { customer: { id: 'k1' }, v: 1 } });
    expect(opened.body.runIds).toHaveLength(1);
    const [window] = opened.body.runIds as number[];
    const events = t.app.get(EventsService);
    const [joined, repeat] = await Promise.all([2, 3].map((v) => events.emitOne('acme', { name: 'coalesce.x', payload: { customer: { id: 'k1' }, v }, idempotencyKey: 'co-1' })));
    expect(joined).toMatchObject({ created: true, runIds: [window] });
    expect(repeat).toMatchObject({ id: joined.id, created: false, runIds: [window] });
    expect(await db.dataSource.getRepository(EventEntity).findOneByOrFail({ id: joined.id })).toMatchObject({ runIds: [window] });
    const [run] = await runsOf(res.body.id as number);
    expect(run).toMatchObject({ id: window, state: 'COALESCING', params: { customerId: 'k1', v: 2 } });
  });

  it.skipIf(kind !== 'mysql')('starts only the first event’s runs when two transactions write one key with events that match different tasks (two writes in flight)', async () => {
    const tasks = { a: await create(acme, 'on-race-a', { kind: 'EVENT', event: 'race.a' }), b: await create(acme, 'on-race-b', { kind: 'EVENT', event: 'race.b' }) };
    // A gate: both tasks locked, so each request's transaction waits at its share lock of its task,
    // after its reads found the key stored by neither; the second is a write of its own (the lane's
    // second in flight), as a request on another console would be.
    const gate = db.dataSource.createQueryRunner();
    try {
      await gate.connect();
      await gate.startTransaction();
      await gate.query('SELECT id FROM tasks WHERE id IN (?, ?) FOR UPDATE', [tasks.a, tasks.b]);
      const send = (name: string) => emit(acme, { name: `race.${name}`, payload: { n: name }, idempotencyKey: 'race-1' }).then((res) => res);
      const first = send('a');
      await untilLockWaits(db.dataSource, 1);
      const second = send('b');
      await untilLockWaits(db.dataSource, 2);
      await gate.commitTransaction();
      await expectOneEventOfKey('race-1', 'race', tasks, await Promise.all([first, second]));
    } finally {
      if (gate.isTransactionActive) await gate.rollbackTransaction();
      await gate.release();
    }
  });

  it('answers a batch event by event: a bad one is its own 400 naming its field, the others are stored', async () => {
    const res = await emit(acme, {
      events: [
        { name: 'order.paid', payload: order('gold'), idempotencyKey: 'b-1' },
        { name: 'bad name', payload: {} },
        { name: 'order.paid', payload: [1] },
        { name: 'order.paid', payload: order('gold'), idempotencyKey: 'b-1' },
        { name: 'order.paid', payload: order('silver') },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 400, 200, 201]);
    expect(res.body).toMatchObject({ created: 2, existing: 1, refused: 2 });
    expect(res.body.results[1].error.errors).toEqual([{ field: 'events[1].name', reason: expect.stringContaining('1 to 100') }]);
    expect(res.body.results[2].error.errors).toEqual([{ field: 'events[2].payload', reason: 'must be a JSON object' }]);
    expect(res.body.results[3].event.id).toBe(res.body.results[0].event.id);
    expect(res.body.results[3].event.runIds).toEqual(res.body.results[0].event.runIds);
    expect((await runsOf(gold)).filter((r) => r.fireKey === 'e:b-1')).toHaveLength(1);
  });

  it('refuses a payload nested deeper than 32 levels naming it — in a batch that event alone, the others stored', async () => {
    const nested = (levels: number): object => (levels === 1 ? { leaf: 1 } : { a: nested(levels - 1) });
    const res = await emit(acme, { events: [{ name: 'nobody.listens', payload: { ok: 1 } }, { name: 'nobody.listens', payload: nested(300) }, { name: 'nobody.listens', payload: nested(32) }] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201]);
    expect(res.body.results[1].error.errors).toEqual([{ field: 'events[1].payload', reason: 'nested deeper than 32 levels' }]);
    const one = await emit(acme, { name: 'nobody.listens', payload: nested(33) });
    expect(one.status).toBe(400);
    expect(one.body.errors).toEqual([{ field: 'payload', reason: 'nested deeper than 32 levels' }]);
  });

  it('answers a key given twice in one batch with its first event, starting nothing for the second even where its payload matches more tasks', async () => {
    const res = await emit(acme, {
      events: [
        { name: 'order.paid', payload: order('silver'), idempotencyKey: 'b-2' },
        { name: 'order.paid', payload: order('gold'), idempotencyKey: 'b-2' },
        { name: 'order.refunded', payload: order('gold'), idempotencyKey: 'b-2' },
      ],
    });
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 200, 200]);
    const [first, ...repeats] = res.body.results.map((r: { event: { id: number; runIds: number[]; created: boolean } }) => r.event);
    for (const repeat of repeats) expect(repeat).toMatchObject({ id: first.id, runIds: first.runIds, created: false, refusedRuns: [] });
    // The first (silver) matched the ledger only: no run of sync-gold, nor any run that no event lists.
    expect((await runsOf(gold)).filter((r) => r.fireKey === 'e:b-2')).toEqual([]);
    const keyed = await db.dataSource.getRepository(RunEntity).findBy({ tenantId: 'acme', fireKey: 'e:b-2' });
    expect(keyed.map((r) => r.id)).toEqual(first.runIds);
  });

  it('refuses a bad event with a 400 naming the field, and writes nothing', async () => {
    const before = await db.dataSource.getRepository(EventEntity).count();
    const big = await emit(acme, { name: 'order.paid', payload: { blob: 'x'.repeat(64_001) } });
    expect(big.status).toBe(400);
    expect(big.body.errors).toEqual([{ field: 'payload', reason: expect.stringContaining('at most 64000') }]);
    const key = await emit(acme, { name: 'order.paid', payload: {}, idempotencyKey: 'no spaces allowed' });
    expect(key.body.errors).toEqual([{ field: 'idempotencyKey', reason: expect.stringContaining('1 to 62') }]);
    const viewer = await t.http().post('/api/events').set(acme.viewerKey).send({ name: 'order.paid', payload: {} });
    expect(viewer.status).toBe(403);
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(before);
  });

  it('refuses, naming events and writing nothing, a batch whose events would start more runs than one request may (MAX_EMIT_RUNS)', async () => {
    const listeners = 11;
    for (let i = 0; i < listeners; i++) {
      const res = await t.http().post('/api/tasks').set(acme.admin).send({ name: `bulk-${i}`, executorApp: 'shop', handler: 'sync', trigger: { kind: 'EVENT', event: 'bulk.x' } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const events = (n: number) => ({ events: Array.from({ length: n }, (_, i) => ({ name: 'bulk.x', payload: { i } })) });
    const before = await db.dataSource.getRepository(EventEntity).count();
    const tooMany = Math.floor(MAX_EMIT_RUNS / listeners) + 1;
    const refused = await emit(acme, events(tooMany));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ field: 'events', reason: `these events match ${tooMany * listeners} tasks' triggers; one request starts at most ${MAX_EMIT_RUNS} runs: send fewer events a call` }]);
    expect(await db.dataSource.getRepository(EventEntity).count()).toBe(before);
    const fits = await emit(acme, events(2));
    expect(fits.status).toBe(200);
    expect(fits.body.results.map((r: { event: { runIds: number[] } }) => r.event.runIds.length)).toEqual([listeners, listeners]);
  });

  it('sends events from a service with the Node SDK client, one or a batch', async () => {
    const client = new BatonClient({ url: await listenOnLoopback(t), apiKey: acme.adminKey['X-API-Key'] });
    try {
      const one = await client.emitEvent({ name: 'order.paid', payload: order('gold'), idempotencyKey: 'sdk-1' });
      expect(one).toMatchObject({ created: true, name: 'order.paid' });
      expect(one.runIds).toHaveLength(2);
      expect(await client.emitEvent({ name: 'order.paid', payload: order('gold'), idempotencyKey: 'sdk-1' })).toMatchObject({ id: one.id, created: false });
      const batch = await client.emitEvents([{ name: 'order.paid', payload: order('silver') }, { name: 'x y' }]);
      expect(batch.results.map((r) => r.status)).toEqual([201, 400]);
      await expect(client.emitEvent({ name: 'x y' })).rejects.toBeInstanceOf(BatonApiError);
      // One at a time, sent together: each its own answer or refusal, named as emitEvent names it.
      const together = await Promise.allSettled([client.emit({ name: 'order.paid', payload: order('gold') }), client.emit({ name: 'x y' }), client.emit({ name: 'order.paid', payload: order('silver'), idempotencyKey: 'sdk-1' })]);
      expect(together[0]).toMatchObject({ status: 'fulfilled', value: { created: true, name: 'order.paid' } });
      expect((together[0] as PromiseFulfilledResult<{ runIds: number[] }>).value.runIds).toHaveLength(2);
      expect(together[1]).toMatchObject({ status: 'rejected', reason: { status: 400, errors: [expect.objectContaining({ field: 'name' })] } });
      expect(together[2]).toMatchObject({ status: 'fulfilled', value: { id: one.id, created: false } });
    } finally {
      client.close();
    }
  });

  it('keeps tenants apart: B neither reads A’s events nor starts A’s tasks', async () => {
    const mine = await emit(acme, { name: 'order.paid', payload: order('gold') });
    expect((await t.http().get(`/api/events/${mine.body.id}`).set(globex.viewer)).status).toBe(404);
    const list = await t.http().get('/api/events?limit=500').set(globex.viewer);
    expect(list.body.items.every((e: { id: number }) => e.id !== mine.body.id)).toBe(true);
    const goldBefore = (await runsOf(gold)).length;
    const res = await emit(globex, { name: 'order.paid', payload: order('gold') });
    expect(res.body.runs.map((r: { taskId: number }) => r.taskId)).toEqual([theirs]);
    expect(await runsOf(gold)).toHaveLength(goldBefore);
  });

  it("shows a viewer a payload's secret-named values redacted — list, detail, search — and finds no text that is only inside one; an admin in clear", async () => {
    const payload = { order: { id: 'o-secret' }, password: 'evtpw-1', auth: { apiToken: 'evt-tok-1' } };
    const sent = await emit(acme, { name: 'order.secret', payload });
    expect(sent.status).toBe(201);
    const redacted = { order: { id: 'o-secret' }, password: '[redacted]', auth: { apiToken: '[redacted]' } };
    const found = async (who: SeededTenant['viewer'], q: string) => {
      const res = await t.http().get('/api/events').query({ name: 'order.secret', q }).set(who);
      expect(res.status, res.text).toBe(200);
      return res.body.items as Array<{ id: number; payload: unknown }>;
    };
    for (const viewer of [acme.viewer, acme.viewerKey]) {
      const list = await t.http().get('/api/events?name=order.secret').set(viewer);
      expect(list.body.items.map((e: { payload: unknown }) => e.payload)).toEqual([redacted]);
      const one = await t.http().get(`/api/events/${sent.body.id}`).set(viewer);
      expect(one.status).toBe(200);
      expect(one.body.payload).toEqual(redacted);
      // A search matching only inside a secret would tell it a character at a time: it finds nothing.
      expect(await found(viewer, 'evtpw')).toEqual([]);
      expect(await found(viewer, 'evt-tok')).toEqual([]);
      expect((await found(viewer, 'o-secret')).map((e) => e.payload)).toEqual([redacted]);
      expect(`${list.text}${one.text}`).not.toMatch(/evtpw|evt-tok/);
    }
    expect((await t.http().get(`/api/events/${sent.body.id}`).set(acme.admin)).body.payload).toEqual(payload);
    expect((await found(acme.adminKey, 'evtpw')).map((e) => e.payload)).toEqual([payload]);
  });

  it('deletes events older than the tenant’s run retention (the engines’ history job)', async () => {
    const repo = db.dataSource.getRepository(EventEntity);
    const old = await repo.save(repo.create({ tenantId: 'acme', name: 'order.paid', payload: {}, idempotencyKey: 'old-one', runIds: [], receivedAt: T0 - 10 * DAY_MS }));
    const theirsOld = await repo.save(repo.create({ tenantId: 'globex', name: 'order.paid', payload: {}, idempotencyKey: null, runIds: [], receivedAt: T0 - 10 * DAY_MS }));
    const ceiling = { runsMs: 7 * DAY_MS, logsMs: 7 * DAY_MS, alarmsMs: 7 * DAY_MS, minRunsKept: 0 };
    const report = await purgeTenant(db.dataSource, 'test', { tenantId: 'acme', rolledUntil: 0, settledUntil: 0, logsPurgedUntil: 0, purgePosition: 0 }, T0, { ceiling, statsRetentionMs: DAY_MS, auditRetentionMs: 365 * DAY_MS, batch: 100 });
    expect(report.events).toBe(1);
    expect(await repo.findOneBy({ id: old.id })).toBeNull();
    expect(await repo.findOneBy({ id: theirsOld.id })).not.toBeNull();
    expect(await repo.countBy({ tenantId: 'acme' })).toBeGreaterThan(0);
    // Its key is free again.
    const again = await emit(acme, { name: 'order.paid', payload: {}, idempotencyKey: 'old-one' });
    expect(again.status).toBe(201);
  });
});
