import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console/console-test-kit';
import { useTestDatabase } from '../support/databases';
import { launchChromium, shot, watchErrors } from './support/chromium';
import { ensureWebBuild } from './support/web-build';

/**
 * A task applied from a tasks-as-code file, in the browser: its page says it is managed, an edit
 * asks first (the next apply would undo it), and once edited the page shows the drift.
 */
describe('managed task page (Chromium)', () => {
  const db = useTestDatabase('sqlite');
  let t: ConsoleTestApp;
  let url: string;
  let acme: SeededTenant;
  let browser: Browser;
  let page: Page;
  let taskId: number;
  const errors: string[] = [];

  beforeAll(async () => {
    ensureWebBuild();
    t = await startConsole(db.dataSource, Date.now());
    url = await listenOnLoopback(t);
    acme = await seedTenant(t, db.dataSource, 'acme');
    const file = 'version: 1\ntasks:\n  - name: from-git\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: FIXED_RATE, intervalMs: 3600000 }\n';
    expect((await t.http().post('/api/config/apply').set(acme.adminKey).send({ file })).status).toBe(200);
    taskId = (await t.http().get('/api/tasks?search=from-git').set(acme.adminKey)).body.items[0].id;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
    await page.goto(`${url}/login`);
    await page.fill('input[name="tenant"]', 'acme');
    await page.fill('input[name="username"]', 'acme-admin');
    await page.fill('input[name="password"]', 'password-123');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${url}/tasks`);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says the task is managed, asks before an edit, and shows the drift after it', async () => {
    await page.goto(`${url}/tasks/${taskId}`);
    const notice = page.getByTestId('managed-task');
    await expect(notice.textContent()).resolves.toContain('Managed by a tasks-as-code file');
    await shot(page, 'managed-task');
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.fill('input[name="priority"]', '9');
    await page.getByRole('button', { name: 'Save task' }).click();
    await expect.poll(() => notice.textContent()).toContain('Drift');
    expect(dialogs[0]).toContain('managed by a tasks-as-code file');
    await page.evaluate('window.scrollTo(0, 0)');
    await shot(page, 'managed-task-drift');
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
