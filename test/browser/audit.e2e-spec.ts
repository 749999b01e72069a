import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { DEMO_EXECUTOR_APP, demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { launchChromium, shot, watchErrors } from './support/chromium';
import { ensureWebBuild } from './support/web-build';

/**
 * The audit log and task versions in a real browser (issue 23 parts 2 and 3), against the
 * embedded app: a task changed through the API shows its versions with their diffs and fire
 * times, one is restored from the page (a new version), the History tab and the Audit page show
 * who did what, and the operator's Audit page spans tenants. Screenshots go to
 * test/artifacts/screenshots/.
 */

const logins = demoLogins({});

// One walk in steps on one page: a task edited and restored, then its History tab, then the operator
// finding the restore among every tenant's records. Kept in order when the suite is shuffled.
describe('audit log and task versions (Chromium)', { shuffle: false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-audit-browser-'));
  let baton: EmbeddedBaton;
  let browser: Browser;
  let page: Page;
  let token: string;
  let taskId: number;
  const errors: string[] = [];

  const api = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown, auth = token): Promise<T> => {
    const res = await fetch(`${baton.url}/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const login = async (p: Page, username: string, password: string, tenant = '') => {
    await p.goto(`${baton.url}/login`);
    await p.getByLabel('Tenant', { exact: true }).fill(tenant);
    await p.getByLabel('Username', { exact: true }).fill(username);
    await p.getByLabel('Password', { exact: true }).fill(password);
    await p.getByRole('button', { name: 'Log in' }).click();
  };

  beforeAll(async () => {
    ensureWebBuild();
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
    token = (await api<{ token: string }>('POST', '/auth/login', logins.tenant, '')).token;
    const task = { name: 'audit-nightly', executorApp: DEMO_EXECUTOR_APP, handler: 'noop', trigger: { kind: 'CRON', expression: '0 0 2 * * *', timeZone: 'UTC' }, params: { region: 'eu' } };
    taskId = (await api<{ id: number }>('POST', '/tasks', task)).id;
    await api('PATCH', `/tasks/${taskId}`, { trigger: { kind: 'CRON', expression: '0 30 4 * * *', timeZone: 'UTC' }, params: { region: 'us' } });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
    page.on('dialog', (d) => void d.accept());
  }, 120_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await shot(page, `failed-audit-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists a task's versions with their field changes and fire times, and restores one as a new version", async () => {
    await login(page, logins.tenant.username, logins.tenant.password, logins.tenant.tenant);
    await page.waitForURL(/\/tasks$/);
    await page.goto(`${baton.url}/tasks/${taskId}`);
    const versions = page.locator('table[aria-label="Task versions"] tbody tr');
    await versions.nth(1).waitFor();
    expect(await versions.count()).toBe(2);
    const v2 = page.locator('tr[data-version="2"]');
    expect(await v2.locator('[data-field]').evaluateAll((els) => els.map((e) => e.getAttribute('data-field')))).toEqual(['params.region', 'trigger.expression']);
    expect(await v2.textContent()).toContain('(current)');
    expect(await page.locator('tr[data-version="1"]').textContent()).toMatch(/02:00/);
    await page.locator('section[aria-label="Versions and history"]').scrollIntoViewIfNeeded();
    await shot(page, 'audit-01-task-versions');

    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText('Version 1 restored as version 3').waitFor();
    await page.locator('tr[data-version="3"]').waitFor();
    expect(await page.locator('tr[data-version="3"]').textContent()).toContain('(current)');
    // The form shows the restored definition.
    expect(await page.getByLabel('Params (JSON)').inputValue()).toContain('"eu"');
    const task = await api<{ version: number; params: { region: string } }>('GET', `/tasks/${taskId}`);
    expect(task).toMatchObject({ version: 3, params: { region: 'eu' } });
  });

  it('shows the task History tab and the Audit page with filters', async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    const rows = page.locator('table[aria-label="Audit records"] tbody tr[data-audit-row]');
    await rows.nth(2).waitFor();
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-audit-action')))).toEqual(['task.restore', 'task.update', 'task.create']);
    await shot(page, 'audit-02-task-history');

    await page.getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL(/\/audit$/);
    await page.locator('tr[data-audit-action="auth.login"]').first().waitFor();
    await page.getByLabel('Action').fill('task.restore');
    await page.locator('tbody tr[data-audit-row]').first().waitFor();
    await expect.poll(() => page.locator('tbody tr[data-audit-row]').count()).toBe(1);
    expect(await page.locator('tbody tr[data-audit-row]').textContent()).toContain(logins.tenant.username);
    await shot(page, 'audit-03-audit-page');
    expect(errors).toEqual([]);
  });

  it("shows what a tasks-as-code apply changed: each field's values (secret-named ones redacted) and what it pruned as it was", async () => {
    const task = (name: string, params: string) => `  - { name: ${name}, executorApp: vault, handler: sync, trigger: { kind: MANUAL }, params: ${params} }\n`;
    await api('POST', '/config/apply', { file: `version: 1\ntasks:\n${task('vault-sync', '{ region: eu, dbPassword: hunter2 }')}${task('vault-old', '{ region: eu, apiToken: tok-old }')}` });
    // The tenant's file without vault-old, vault-sync changed, applied with prune: vault-old is deleted, nothing else.
    const exported = parse(await (await fetch(`${baton.url}/api/config/export`, { headers: { authorization: `Bearer ${token}` } })).text()) as { tasks: Array<{ name: string; params?: unknown }> };
    exported.tasks = exported.tasks.filter((x) => x.name !== 'vault-old').map((x) => (x.name === 'vault-sync' ? { ...x, params: { region: 'us', dbPassword: 'hunter3' } } : x));
    await api('POST', '/config/apply', { file: stringify(exported), prune: true });

    await page.goto(`${baton.url}/audit`);
    await page.getByLabel('Action').fill('config.apply');
    await expect.poll(() => page.locator('tbody tr[data-audit-row]').count()).toBe(2);
    const [pruning, creating] = [page.locator('tr[data-audit-action="config.apply"]').nth(0), page.locator('tr[data-audit-action="config.apply"]').nth(1)];
    expect(await pruning.locator('[data-count="task"]').textContent()).toBe('Tasks: 1 updated · 1 deleted');
    expect(await pruning.locator('.apply-counts code').textContent()).toBe('--prune');
    const old = pruning.locator('li[data-change="task:vault-old"]');
    expect(await old.getAttribute('data-action')).toBe('delete');
    expect(await old.textContent()).toContain('Task deleted: vault-old');
    expect(await old.locator('[data-field="params"]').textContent()).toBe('params: {"region":"eu","apiToken":"[redacted]"} → (not set)');
    expect(await old.locator('[data-field="handler"]').textContent()).toBe('handler: "sync" → (not set)');
    const sync = pruning.locator('li[data-change="task:vault-sync"]');
    expect(await sync.locator('[data-field]').evaluateAll((els) => els.map((e) => e.textContent))).toEqual(['params.dbPassword: "[redacted]" → "[redacted]"', 'params.region: "eu" → "us"']);
    expect(await creating.locator('[data-count="task"]').textContent()).toBe('Tasks: 2 created');
    expect(await creating.locator('li[data-change="task:vault-sync"] [data-field="params"]').textContent()).toBe('params: (not set) → {"region":"eu","dbPassword":"[redacted]"}');
    expect(await page.locator('table[aria-label="Audit records"]').textContent()).not.toMatch(/hunter|tok-old/);
    await pruning.scrollIntoViewIfNeeded();
    await shot(page, 'audit-05-config-apply');
    expect(errors).toEqual([]);
  });

  it("shows the operator every tenant's records", async () => {
    const op = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchErrors(op, errors);
    await login(op, logins.operator.username, logins.operator.password);
    await op.waitForURL(/\/operator$/);
    await op.getByRole('link', { name: 'Audit' }).click();
    await op.locator('table[aria-label="Audit records"] th', { hasText: 'Tenant' }).waitFor();
    await op.locator('tr[data-audit-action="task.restore"]').waitFor();
    await shot(op, 'audit-04-operator-audit');
    expect(errors).toEqual([]);
  });
});
