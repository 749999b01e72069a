/**
 * Tasks as code through the API (what `baton export|plan|apply` call): a tenant's tasks,
 * dependencies, calendars, webhooks and retention as one YAML file; the round trip (export →
 * apply to an empty tenant → export gives the same file); plan's field diffs and next fire
 * times; apply all or nothing (a refusal half-way leaves the tenant as it was), audited once;
 * prune; managed tasks and drift; tenant isolation; and the time to apply 1,000 tasks.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_FILE_SCHEMA } from '../../apps/console/src/config-as-code/config-file.schema';
import { lockTenant } from '@baton/persistence';
import { TEST_DATABASES, useTestDatabase } from '../support/databases';
import { untilLockWaits } from '../support/lock-waits';
import { cronTask, rowCounts, seedTenant, startConsole, type ConsoleTestApp, type Credentials, type SeededTenant } from './console-test-kit';

describe.each(TEST_DATABASES)('tasks as code on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let acme: SeededTenant;
  let beta: SeededTenant;
  let gamma: SeededTenant;

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    acme = await seedTenant(t, db.dataSource, 'acme');
    beta = await seedTenant(t, db.dataSource, 'beta');
    gamma = await seedTenant(t, db.dataSource, 'gamma');
    const as = acme.admin;
    const ok = async (res: { status: number; body: unknown }) => {
      if (res.status >= 300) throw new Error(`setup: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, unknown>;
    };
    await ok(await t.http().post('/api/calendars').set(as).send({ name: 'holidays', timeZone: 'Europe/Berlin', dates: ['2026-12-25', '2026-12-24'] }));
    const report = await ok(await t.http().post('/api/tasks').set(as).send(cronTask('report', { calendarName: 'holidays', retry: { maxAttempts: 3 }, trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin', repeatedTime: 'TWICE', skippedTime: 'SKIP' } })));
    const mail = await ok(await t.http().post('/api/tasks').set(as).send(cronTask('mail', { trigger: { kind: 'FIXED_RATE', intervalMs: 60_000 }, group: 'mailers', onStartLate: 'GIVE_UP' })));
    await ok(await t.http().post('/api/tasks').set(as).send(cronTask('adhoc', { trigger: { kind: 'MANUAL' }, params: { deep: { list: [1, 2, { x: 'y' }] } } })));
    await ok(await t.http().post('/api/dependencies').set(as).send({ parentTaskId: report.id, childTaskId: mail.id, condition: 'ON_COMPLETION' }));
    await ok(await t.http().post('/api/webhooks').set(as).send({ name: 'ops', url: 'https://hooks.example.com/baton', minSeverity: 'CRITICAL' }));
    await ok(await t.http().put('/api/retention').set(as).send({ runsMs: 86_400_000, logsMs: null, alarmsMs: null, minRunsKept: 50 }));
  }, 60_000);
  afterAll(() => t?.close());

  const exportOf = async (who: Credentials): Promise<string> => {
    const res = await t.http().get('/api/config/export').set(who);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    return res.text;
  };
  const post = (route: 'plan' | 'apply', who: Credentials, file: string, prune = false) => t.http().post(`/api/config/${route}`).set(who).send({ file, prune });
  const body = (file: string) => file.replace(/^# .*\n/gm, '');

  it("exports the tenant as one YAML file: names not ids, none of Baton's secrets (webhook signing secrets), stable order", async () => {
    const file = await exportOf(acme.adminKey);
    const doc = parse(file) as Record<string, unknown[]> & { retention: unknown };
    expect(doc.tasks.map((task) => (task as { name: string }).name)).toEqual(['adhoc', 'mail', 'report']);
    expect(doc.dependencies).toEqual([{ parent: 'report', child: 'mail', condition: 'ON_COMPLETION' }]);
    expect(doc.calendars).toEqual([{ name: 'holidays', timeZone: 'Europe/Berlin', dates: ['2026-12-24', '2026-12-25'] }]);
    expect(doc.webhooks).toEqual([{ name: 'ops', url: 'https://hooks.example.com/baton', alarmTypes: null, minSeverity: 'CRITICAL' }]);
    expect(doc.retention).toEqual({ runsMs: 86_400_000, logsMs: null, alarmsMs: null, minRunsKept: 50 });
    expect(file).not.toMatch(/whsec_|secret|\bid:/);
    // A cron's daylight-saving policy is in the file where it is not the default, and only there.
    expect((doc.tasks.find((task) => (task as { name: string }).name === 'report') as { trigger: unknown }).trigger).toEqual({ kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'Europe/Berlin', repeatedTime: 'TWICE' });
    // onStartLate where it is not the default (ALARM), and only there.
    expect(doc.tasks.map((task) => [(task as { name: string }).name, (task as { onStartLate?: string }).onStartLate])).toEqual([
      ['adhoc', undefined],
      ['mail', 'GIVE_UP'],
      ['report', undefined],
    ]);
    expect(await exportOf(acme.adminKey)).toBe(file);
  });

  it('round trip: export → apply to an empty tenant → export gives the same file', async () => {
    const file = await exportOf(acme.admin);
    const applied = await post('apply', beta.adminKey, file);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.applied).toBe(true);
    const again = await exportOf(beta.admin);
    expect(body(again)).toBe(body(file));
    // Applying it again changes nothing.
    expect((await post('plan', beta.adminKey, again)).body.changes).toEqual([]);
  });

  it('plans field by field, with the next fire times of a task whose schedule changes, and changes nothing', async () => {
    const file = (await exportOf(acme.admin)).replace("expression: 0 0 2 * * *", "expression: 0 30 6 * * *").replace('maxAttempts: 3', 'maxAttempts: 5');
    const before = await rowCounts(db.dataSource);
    const res = await post('plan', acme.adminKey, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [change] = res.body.changes;
    expect(change).toMatchObject({ kind: 'task', name: 'report', action: 'update' });
    expect(change.fields).toEqual([
      { field: 'retry.maxAttempts', before: 3, after: 5 },
      { field: 'trigger.expression', before: '0 0 2 * * *', after: '0 30 6 * * *' },
    ]);
    expect(change.nextFireTimes.before).toHaveLength(3);
    expect(new Date(change.nextFireTimes.after[0]).toISOString()).toMatch(/T05:30:00/);
    expect(await rowCounts(db.dataSource)).toEqual(before);
  });

  it('applies all or nothing: a refusal half-way (a cycle found after the tasks were written) leaves the tenant as it was', async () => {
    const before = await exportOf(gamma.admin);
    const file = body(await exportOf(acme.admin)).replace(
      'dependencies:\n',
      'dependencies:\n  - parent: mail\n    child: report\n    condition: ON_SUCCESS\n',
    );
    const auditBefore = await db.dataSource.query("SELECT COUNT(*) AS n FROM audit_log WHERE tenant_id = 'gamma'");
    const res = await post('apply', gamma.adminKey, file);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe('DEPENDENCY_CYCLE');
    expect(await exportOf(gamma.admin)).toBe(before);
    expect(await db.dataSource.query("SELECT COUNT(*) AS n FROM audit_log WHERE tenant_id = 'gamma'")).toEqual(auditBefore);
  });

  it('refuses a bad file with a 400 naming each place in it, and stores nothing', async () => {
    const before = await exportOf(gamma.admin);
    const task = (name: string, trigger: string) => `  - name: ${name}\n    executorApp: a\n    handler: h\n    trigger: ${trigger}\n`;
    const file = `version: 1\ntasks:\n${task('bad', '{ kind: CRON, expression: "99 * * * *", timeZone: UTC }')}${task('twice', '{ kind: MANUAL }')}${task('twice', '{ kind: MANUAL }')}surprise: 1\n`;
    const res = await post('apply', gamma.adminKey, file);
    expect(res.status).toBe(400);
    expect((res.body.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual(['surprise', 'tasks[0].trigger.expression', 'tasks[2]']);
    expect(await exportOf(gamma.admin)).toBe(before);
    expect((await post('apply', gamma.adminKey, 'version: 1\ntasks: [\n')).body.errors[0].field).toBe('file');
    // A list that is not one is one error, and a name that is a number says so.
    expect((await post('plan', gamma.adminKey, 'version: 1\ntasks: { a: 1 }\n')).body.errors).toEqual([{ field: 'tasks', reason: 'must be a list' }]);
    expect((await post('plan', gamma.adminKey, 'version: 1\ntasks:\n  - { name: 5, executorApp: a, handler: h, trigger: { kind: MANUAL } }\n')).body.errors).toEqual([{ field: 'tasks[0].name', reason: 'must be a string' }]);
  });

  it('plans as it applies: a name the tenant would not have, or a cycle, is refused by plan with the answer apply gives', async () => {
    const before = await exportOf(gamma.admin);
    const tasks = 'tasks:\n  - { name: p, executorApp: a, handler: h, trigger: { kind: CRON, expression: "0 0 2 * * *", timeZone: UTC }, calendarName: nowhere }\n  - { name: q, executorApp: a, handler: h, trigger: { kind: MANUAL } }\n';
    const unknown = `version: 1\n${tasks}dependencies:\n  - { parent: p, child: report }\n`;
    const cycle = `version: 1\n${tasks.replace(', calendarName: nowhere', '')}dependencies:\n  - { parent: p, child: q }\n  - { parent: q, child: p }\n`;
    for (const route of ['plan', 'apply'] as const) {
      const refused = await post(route, gamma.adminKey, unknown);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors).toEqual([
        { field: 'tasks[0].calendarName', reason: 'no calendar named "nowhere" (in the file or the tenant)' },
        // acme's task "report" is no task of gamma's.
        { field: 'dependencies[0].child', reason: 'no task named "report" (in the file or the tenant)' },
      ]);
      const cyclic = await post(route, gamma.adminKey, cycle);
      expect(cyclic.status, JSON.stringify(cyclic.body)).toBe(409);
      // The file's edge that closes it named by its place, as every refusal of a file is.
      expect(cyclic.body).toMatchObject({ code: 'DEPENDENCY_CYCLE', cycle: ['p', 'q', 'p'], errors: [{ field: 'dependencies[1]', reason: 'closes the cycle p → q → p' }] });
    }
    // A task that could never fire (a one-shot whose time has passed, an end passed): plan refuses it as apply does.
    const never = 'version: 1\ntasks:\n  - { name: once, executorApp: a, handler: h, trigger: { kind: ONCE, at: 946684800000 } }\n  - { name: ended, executorApp: a, handler: h, trigger: { kind: CRON, expression: "0 0 2 * * *", timeZone: UTC }, endAt: 946684800000 }\n';
    for (const route of ['plan', 'apply'] as const) {
      const refused = await post(route, gamma.adminKey, never);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors).toEqual([
        { field: 'tasks[0].trigger.at', reason: 'is in the past, so the task would never fire' },
        { field: 'tasks[1].endAt', reason: 'is in the past, so the task would never fire' },
      ]);
    }
    // With prune, the tenant's other tasks go: an edge to one of them is refused too.
    const pruned = await post('plan', acme.adminKey, 'version: 1\ncalendars: []\ntasks:\n  - { name: q, executorApp: a, handler: h, trigger: { kind: MANUAL } }\ndependencies:\n  - { parent: q, child: report }\n', true);
    expect(pruned.body.errors).toEqual([{ field: 'dependencies[0].child', reason: 'no task named "report" (in the file; --prune deletes the tenant\'s others)' }]);
    expect(await exportOf(gamma.admin)).toBe(before);
  });

  it("keeps an imported task's importedFrom (in its export; not in a copy) and refuses a file creating a second task of the same item, naming both", async () => {
    const imported = await seedTenant(t, db.dataSource, 'imported');
    const job = (name: string) => `version: 1\ntasks:\n  - { name: ${name}, executorApp: reports, handler: build-report, trigger: { kind: MANUAL }, importedFrom: "xxl-job:xxl_job/xxl_job_ job 1" }\n`;
    expect((await post('apply', imported.adminKey, job('build-report-1'))).status).toBe(200);
    expect(await exportOf(imported.admin)).toContain('importedFrom: xxl-job:xxl_job/xxl_job_ job 1\n');
    // Imported again under another name (the map changed): the job would fire twice.
    for (const route of ['plan', 'apply'] as const) {
      const refused = await post(route, imported.adminKey, job('demoJobHandler-1'));
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'tasks[0].importedFrom', reason: expect.stringMatching(/^task "demoJobHandler-1" would be created imported from "xxl-job:xxl_job\/xxl_job_ job 1", as the tenant's task "build-report-1" is, which this file does not name: both would fire\. /) }]);
    }
    expect((await post('plan', imported.adminKey, job('demoJobHandler-1'), true)).status).toBe(200); // --prune deletes the old one
    const [task] = (await t.http().get('/api/tasks').set(imported.admin)).body.items;
    expect(task).toMatchObject({ name: 'build-report-1', importedFrom: 'xxl-job:xxl_job/xxl_job_ job 1', drifted: false });
    const copy = await t.http().post(`/api/tasks/${task.id}/copy`).set(imported.admin).send({ name: 'build-report-1-copy' });
    expect(copy.body).toMatchObject({ name: 'build-report-1-copy', importedFrom: null });
  });

  it.skipIf(kind !== 'mysql')('an apply waits for an edge the API is saving (both lock the tenant row), so the two cannot close a cycle together', async () => {
    const pair = 'version: 1\ntasks:\n  - { name: ra, executorApp: a, handler: h, trigger: { kind: MANUAL } }\n  - { name: rb, executorApp: a, handler: h, trigger: { kind: MANUAL } }\n';
    expect((await post('apply', beta.adminKey, pair)).status).toBe(200);
    const ids = Object.fromEntries(((await db.dataSource.query(`SELECT id, name FROM tasks WHERE tenant_id = 'beta' AND name IN ('ra', 'rb')`)) as Array<{ id: number; name: string }>).map((r) => [r.name, Number(r.id)]));
    // POST /api/dependencies rb → ra, half-way: the tenant locked, its edge written, not committed.
    const api = db.dataSource.createQueryRunner();
    await api.connect();
    try {
      await api.startTransaction();
      await lockTenant(api.manager, 'beta');
      // Sent now (supertest sends a request when it is first awaited or then'd).
      const applying = post('apply', beta.adminKey, `${pair}dependencies:\n  - { parent: ra, child: rb }\n`).then((res) => res);
      await untilLockWaits(db.dataSource, 1);
      await api.query(`INSERT INTO task_dependencies (tenant_id, parent_task_id, child_task_id, \`condition\`, approval, created_at) VALUES ('beta', ?, ?, 'ON_SUCCESS', NULL, 0)`, [ids.rb, ids.ra]);
      await api.commitTransaction();
      const applied = await applying;
      expect(applied.status, JSON.stringify(applied.body)).toBe(409);
      expect(applied.body).toMatchObject({ code: 'DEPENDENCY_CYCLE', errors: [{ field: 'dependencies[0]' }] });
    } finally {
      await api.release();
    }
  });

  it('records one audit record for an apply, marks its tasks managed, and shows drift after a console edit', async () => {
    const file = 'version: 1\ntasks:\n  - name: managed-one\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: FIXED_RATE, intervalMs: 3600000 }\n';
    const count = async () => Number((await db.dataSource.query("SELECT COUNT(*) AS n FROM audit_log WHERE tenant_id = 'gamma' AND action = 'config.apply'"))[0].n);
    const audits = await count();
    expect((await post('apply', gamma.adminKey, file)).status).toBe(200);
    expect(await count()).toBe(audits + 1);
    const [record] = (await db.dataSource.query("SELECT after_json FROM audit_log WHERE tenant_id = 'gamma' AND action = 'config.apply' ORDER BY id DESC LIMIT 1")) as Array<{ after_json: string }>;
    expect(JSON.parse(record.after_json)).toMatchObject({ prune: false, counts: { task: { create: 1 } }, changes: [{ kind: 'task', name: 'managed-one', action: 'create' }] });
    const task = (await t.http().get('/api/tasks?search=managed-one').set(gamma.admin)).body.items[0];
    expect(task).toMatchObject({ managed: true, drifted: false });
    const edited = await t.http().patch(`/api/tasks/${task.id}`).set(gamma.admin).send({ priority: 7 });
    expect(edited.body).toMatchObject({ managed: true, drifted: true });
    // Plan shows the way back; apply puts the file's definition back.
    expect((await post('plan', gamma.adminKey, file)).body.changes[0].fields).toEqual([{ field: 'priority', before: 7, after: 0 }]);
    await post('apply', gamma.adminKey, file);
    expect((await t.http().get(`/api/tasks/${task.id}`).set(gamma.admin)).body).toMatchObject({ priority: 0, drifted: false });
  });

  it('prune deletes what the file no longer names; without it, nothing is deleted', async () => {
    const file = 'version: 1\ntasks:\n  - name: managed-one\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: FIXED_RATE, intervalMs: 3600000 }\n';
    // A tenant of its own, made a copy of acme here: beta is the round trip's empty tenant.
    const delta = await seedTenant(t, db.dataSource, 'delta');
    expect((await post('apply', delta.adminKey, await exportOf(acme.admin))).status).toBe(200);
    const full = await exportOf(delta.admin);
    expect((await post('plan', delta.adminKey, file)).body.changes.filter((c: { action: string }) => c.action === 'delete')).toEqual([]);
    const pruned = await post('apply', delta.adminKey, file, true);
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    const deleted = (pruned.body.changes as Array<{ kind: string; name: string; action: string }>).filter((c) => c.action === 'delete').map((c) => `${c.kind}:${c.name}`);
    expect(deleted.sort()).toEqual(['calendar:holidays', 'dependency:report → mail', 'task:adhoc', 'task:mail', 'task:report', 'webhook:ops']);
    const left = parse(await exportOf(delta.admin)) as { tasks: Array<{ name: string }>; calendars: unknown[] };
    expect(left.tasks.map((x) => x.name)).toEqual(['managed-one']);
    expect(left.calendars).toEqual([]);
    // And back: the full file recreates it all.
    expect((await post('apply', delta.adminKey, full, true)).status).toBe(200);
    expect(body(await exportOf(delta.admin))).toBe(body(full));
  });

  it("records what an apply changed, field by field with values (secret-named ones redacted) and what it pruned as it was, to its tenant's audit only", async () => {
    const epsilon = await seedTenant(t, db.dataSource, 'epsilon');
    const task = (name: string, params: string) => `  - name: ${name}\n    executorApp: vault\n    handler: sync\n    trigger: { kind: MANUAL }\n    params: ${params}\n`;
    const first = `version: 1\ntasks:\n${task('vault-sync', '{ region: eu, dbPassword: hunter2 }')}${task('doomed', '{ region: eu, apiToken: tok-doomed }')}`;
    expect((await post('apply', epsilon.adminKey, first)).status).toBe(200);
    const second = `version: 1\ntasks:\n${task('vault-sync', '{ region: us, dbPassword: hunter3 }')}`;
    expect((await post('apply', epsilon.adminKey, second, true)).status).toBe(200);
    // A task deleted through the API, for its record's `before` to compare with the pruned one's.
    const made = await t.http().post('/api/tasks').set(epsilon.admin).send({ name: 'deleted-by-api', executorApp: 'vault', handler: 'sync', trigger: { kind: 'MANUAL' }, params: { region: 'eu', apiToken: 'tok-doomed' } });
    expect((await t.http().delete(`/api/tasks/${made.body.id}`).set(epsilon.admin)).status).toBe(204);

    const audit = await t.http().get('/api/audit?action=config.apply').set(epsilon.adminKey);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).not.toMatch(/hunter|tok-doomed/);
    const [pruning, creating] = audit.body.items as Array<{ objectType: string; after: { prune: boolean; counts: unknown; changes: Array<Record<string, unknown>> } }>;
    expect(creating.after).toMatchObject({ prune: false, counts: { task: { create: 2 } } });
    expect(creating.after.changes.find((c) => c.name === 'vault-sync')!.fields).toContainEqual({ field: 'params', after: { region: 'eu', dbPassword: '[redacted]' } });
    expect(pruning.objectType).toBe('config');
    expect(pruning.after).toEqual({
      prune: true,
      counts: { task: { update: 1, delete: 1 } },
      changes: [
        { kind: 'task', name: 'doomed', action: 'delete', fields: [], before: expect.objectContaining({ name: 'doomed', executorApp: 'vault', handler: 'sync', trigger: { kind: 'MANUAL' }, params: { region: 'eu', apiToken: '[redacted]' } }) },
        {
          kind: 'task',
          name: 'vault-sync',
          action: 'update',
          fields: [
            { field: 'params.dbPassword', before: '[redacted]', after: '[redacted]' },
            { field: 'params.region', before: 'eu', after: 'us' },
          ],
        },
      ],
    });
    const [deletion] = (await t.http().get('/api/audit?action=task.delete').set(epsilon.adminKey)).body.items as Array<{ before: { params: unknown } }>;
    expect(pruning.after.changes[0].before).toMatchObject({ params: deletion.before.params });

    // Another tenant's audit shows none of it.
    const theirs = await t.http().get('/api/audit?action=config.apply').set(gamma.adminKey);
    expect(theirs.status).toBe(200);
    expect(JSON.stringify(theirs.body)).not.toMatch(/vault|doomed/);
  });

  it("moves the next fire of the tasks using a calendar whose dates the file changes", async () => {
    const file = (dates: string) =>
      `version: 1\ncalendars:\n  - { name: closed, timeZone: UTC, dates: [${dates}] }\ntasks:\n  - name: nightly-closed\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: CRON, expression: "0 0 2 * * *", timeZone: UTC }\n    calendarName: closed\n`;
    expect((await post('apply', gamma.adminKey, file(''))).status).toBe(200);
    const next = async () => (await t.http().get('/api/tasks?search=nightly-closed').set(gamma.admin)).body.items[0].nextFireAt as number;
    expect(new Date(await next()).toISOString()).toBe('2026-03-01T02:00:00.000Z');
    const res = await post('apply', gamma.adminKey, file('2026-03-01'));
    expect(res.body.changes.map((c: { kind: string; action: string }) => `${c.kind}:${c.action}`)).toEqual(['calendar:update']);
    expect(new Date(await next()).toISOString()).toBe('2026-03-02T02:00:00.000Z');
  });

  it('keeps tenants apart and needs an admin to plan or apply', async () => {
    const file = await exportOf(acme.admin);
    expect(await exportOf(gamma.admin)).not.toContain('report');
    expect((await post('apply', acme.viewerKey, file)).status).toBe(403);
    expect((await post('plan', acme.viewer, file)).status).toBe(403);
    expect((await t.http().get('/api/config/export')).status).toBe(401);
  });

  it('shows a viewer what a viewer may list: no webhooks (their URLs are credentials)', async () => {
    const viewers = await Promise.all([exportOf(acme.viewer), exportOf(acme.viewerKey)]);
    for (const file of viewers) {
      expect(file).not.toContain('hooks.example.com');
      expect(parse(file)).not.toHaveProperty('webhooks');
      expect(file).toContain('# Webhooks: not shown');
      expect(body(file)).toBe(body(await exportOf(acme.admin)).replace(/^webhooks:\n(?: .*\n)*/m, ''));
    }
    expect((await t.http().get('/api/webhooks').set(acme.viewer)).status).toBe(403);
  });

  it('publishes the file\'s JSON Schema at an URL, the same as docs/tasks-as-code.schema.json', async () => {
    const res = await t.http().get('/api/config/schema');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(CONFIG_FILE_SCHEMA);
    const committed = JSON.parse(readFileSync(resolve(__dirname, '../../docs/tasks-as-code.schema.json'), 'utf8'));
    expect(committed, 'docs/tasks-as-code.schema.json is stale: npm run docs:schema').toEqual(CONFIG_FILE_SCHEMA);
  });
});
