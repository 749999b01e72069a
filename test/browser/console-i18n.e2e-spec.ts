import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { launchChromium, settled, shot, watchErrors } from './support/chromium';
import { consoleApi } from './support/console-api';
import { ensureWebBuild } from './support/web-build';

/**
 * The console in Simplified Chinese and English, light and dark, in a real browser against the
 * embedded app: every page rendered in zh-CN holds no untranslated interface string (a DOM walk of
 * its text, titles, labels and options: any Latin word left is English the catalogue missed,
 * unless it is data — marked translate="no", code — or a name of the demo's own data); the
 * language, theme and display time zone are switched and kept as the user's preferences; and
 * every page is photographed in both languages and both themes (test/artifacts/screenshots/i18n-*).
 */

const logins = demoLogins({});

/** Latin words that are names, not English: the product, protocols, units, the language's own name. */
const NAMES = new Set(['Baton', 'API', 'JSON', 'Schema', 'Cron', 'cron', 'Webhook', 'ActiveMQ', 'CIDR', 'URL', 'HTTP', 'UTC', 'GMT', 'CI', 'Ctrl', 'English', 'HMAC', 'SHA', 'ctx', 'shardIndex', 'shardTotal', 'npm', 'POST', 'GitHub', 'Stripe', 'Quartz', 'customerId']);

/** Text fragments that are code, addresses or product names (stripped before looking for words; `task.update`: an audit action; XXL-JOB, xxl-job-core). */
const CODE = [/https?:\/\/\S+/g, /\bctx\.[\w.]+(\(…\))?/g, /\bnpm run [\w:]+/g, /\b[A-Z][a-z]+\/[A-Za-z_-]+(\/[A-Za-z_-]+)?/g, /\*\.[\w.]+/g, /\bBATON_\w+/g, /\b\d+\.\d+\.\d+\.\d+(\/\d+)?/g, /\bcron \S+/g, /\bYYYY-MM-DD\b/g, /\bxxl-job(-core)?\b/gi, /\b[a-z]+(-[a-z]+)*\.[a-z]+(-[a-z]+)*\b/g];

/**
 * Every piece of interface text on the page: visible text nodes, titles, aria-labels,
 * placeholders, <option>s and the document title — minus what is data: anything inside
 * translate="no", code, pre, .mono, a textarea, a node of the dependency graph (a task name), and
 * a title marked data-title-is-data (a run's error on hover).
 */
const COLLECT_TEXT = `(() => {
  const out = [document.title];
  const skip = (el) => el.closest('[translate="no"], code, pre, .mono, textarea, datalist, .dag-node, script, style');
  const shown = (el) => { const cs = getComputedStyle(el); return cs.display !== 'none' && cs.visibility !== 'hidden' && el.getClientRects().length > 0; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    const text = (n.textContent || '').trim();
    if (text && el && !skip(el) && shown(el)) out.push(text);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (skip(el)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) { const v = el.getAttribute(a); if (v && !(a === 'title' && el.hasAttribute('data-title-is-data'))) out.push(v); }
  }
  for (const o of document.querySelectorAll('option')) if (!skip(o)) out.push((o.textContent || '').trim());
  return out;
})()`;

/**
 * Pixels of the first chart's canvas near the text colour of each chart palette
 * (web/src/features/stats/chart-theme.ts): its axis labels and legend, drawn by Chart.js.
 */
async function chartInk(page: Page): Promise<{ lightText: number; darkText: number }> {
  // A string: the test's TypeScript has no DOM types; this runs in the page.
  return page.evaluate<{ lightText: number; darkText: number }>(`(() => {
    const canvas = document.querySelector('.chart canvas');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const near = (i, [r, g, b]) => Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 24 && data[i + 3] > 200;
    let lightText = 0;
    let darkText = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (near(i, [0x5d, 0x66, 0x78])) lightText++;
      if (near(i, [0xb0, 0xbc, 0xc8])) darkText++;
    }
    return { lightText, darkText };
  })()`);
}

// The tests share their users' preferences (language, theme, zone), each test leaving them as the next
// expects: a shuffled run (--sequence.shuffle) keeps their order; the files around it still move.
describe('the console in two languages and two themes (Chromium)', { shuffle: false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-i18n-'));
  let baton: EmbeddedBaton;
  let browser: Browser;
  let token: string;
  let runId = 0;
  let flowId = 0;
  let taskId = 0;
  let failedRunId = 0;
  let eventId = 0;
  let waitingRunId = 0;
  /** Words of the demo's own data (task, group, handler, app, user and tenant names): not English to translate. */
  const dataWords = new Set<string>();
  const errors: string[] = [];

  const api = consoleApi(() => baton.url, () => token);

  const addWords = (...texts: Array<string | null | undefined>) => {
    for (const text of texts) for (const w of (text ?? '').match(/[A-Za-z]{2,}/g) ?? []) dataWords.add(w);
  };

  /** A browser context in `locale`, logged in through the login form (fields by name: the labels are in that language). */
  const loggedIn = async (locale: string, who: 'tenant' | 'operator', timezoneId = 'Asia/Shanghai'): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale, timezoneId });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
    await page.goto(`${baton.url}/login`);
    if (who === 'tenant') await page.locator('input[name="tenant"]').fill(logins.tenant.tenant);
    const login = who === 'tenant' ? logins.tenant : logins.operator;
    await page.locator('input[name="username"]').fill(login.username);
    await page.locator('input[name="password"]').fill(login.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(who === 'tenant' ? /\/tasks$/ : /\/operator$/);
    return { context, page };
  };

  /** The pages of a tenant admin and of an operator, with what each waits for beyond its heading. */
  const tenantPages = (): Array<[string, string, string?]> => [
    ['home', '/home', '[data-dashboard]'],
    ['tasks', '/tasks', 'tr[data-task]'],
    ['task-new', '/tasks/new', '[data-cron-description]'],
    ['task-edit', `/tasks/${taskId}`, 'form.editor'],
    ['dependencies', '/dependencies', 'svg.dag'],
    ['flow', `/dependencies?flow=${flowId}`, '[data-flow-legend]'],
    ['runs', '/runs', 'tr[data-run-id]'],
    ['run', `/runs/${runId}`, '.timeline li.done[data-step="finished"]'],
    ['run-retried', `/runs/${failedRunId}`, 'details.attempt'],
    ['run-approval', `/runs/${waitingRunId}`, '[data-approval="WAITING"] button[data-approve]'],
    ['run-search', '/runs/search', 'form[role="search"]'],
    ['events', '/events', 'tr[data-event]'],
    ['event', `/events/${eventId}`, '[data-event-detail]'],
    ['executors', '/executors', 'tr[data-executor]'],
    ['alarms', '/alarms', 'tr[data-alarm-row]'],
    ['stats', '/stats', '.kpis'],
    ['calendars', '/calendars', 'tr[data-calendar]'],
    ['retention', '/retention', 'tr[data-retention]'],
    ['webhooks', '/webhooks'],
    ['users', '/users', 'tr[data-user]'],
    ['audit', '/audit', '[data-apply-record] li[data-change]'],
    ['api-keys', '/operator'],
    ['account', '/account', '[data-prefs-now]'],
    // Inside the app (the server's answer to an unknown path is another branch's): the app's own page.
    ['not-found', 'app:/nope', '[data-not-found]'],
  ];
  const operatorPages: Array<[string, string, string?]> = [
    ['operator-home', '/home', 'tr[data-overview-tenant]'],
    ['operator', '/operator', 'tr[data-load-tenant]'],
    ['operator-users', '/users', 'tr[data-user]'],
    ['operator-audit', '/audit', 'tr[data-audit-row]'],
    ['operator-account', '/account'],
  ];

  const open = async (page: Page, path: string, waitFor?: string) => {
    if (path.startsWith('app:')) await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path.slice(4))}); dispatchEvent(new PopStateEvent('popstate'))`);
    else await page.goto(`${baton.url}${path}`);
    await page.locator('main h1').first().waitFor();
    if (waitFor) await page.locator(waitFor).first().waitFor();
    await settled(page); // the page's second loads (summaries, schemas, charts)
  };

  /** The interface texts of the page that still hold an English word (none when all is translated). */
  const untranslated = async (page: Page, name: string): Promise<string[]> => {
    const texts = await page.evaluate<string[]>(COLLECT_TEXT);
    const found: string[] = [];
    for (const text of texts) {
      let rest = text;
      for (const re of CODE) rest = rest.replace(re, ' ');
      const english = (rest.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !NAMES.has(w) && !dataWords.has(w));
      if (english.length) found.push(`${name}: “${text}” (${english.join(', ')})`);
    }
    return [...new Set(found)];
  };

  beforeAll(async () => {
    ensureWebBuild();
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
    token = (await api<{ token: string }>('POST', '/auth/login', logins.tenant, '')).token;
    const tasks = (await api<{ items: Array<{ id: number; name: string; group: string; handler: string; executorApp: string }> }>('GET', '/tasks?limit=100')).items;
    for (const x of tasks) addWords(x.name, x.group, x.handler, x.executorApp);
    addWords(logins.tenant.tenant, logins.tenant.username, logins.operator.username, 'default', 'holidays');
    const byName = (n: string) => tasks.find((x) => x.name === n)!.id;
    taskId = byName('build-report');
    await api('POST', '/calendars', { name: 'holidays', timeZone: 'Asia/Shanghai', dates: ['2026-10-01', '2026-10-02'] });
    await api('PUT', `/retention/tasks/${taskId}`, { runsMs: 3 * 86_400_000, minRunsKept: 5 });
    // An approval step after publish-report: its child waits for a decision, for the run page's approval section.
    const shipReport = (await api<{ id: number }>('POST', '/tasks', { name: 'ship-report', group: 'reports', executorApp: tasks[0].executorApp, handler: 'noop', trigger: { kind: 'MANUAL' } })).id;
    addWords('ship-report');
    await api('POST', '/dependencies', { parentTaskId: byName('publish-report'), childTaskId: shipReport, approval: { role: 'TENANT_ADMIN' } });
    // A flow (build-report → publish-report) and a failure with its alarm, for the run, flow and alarm pages.
    flowId = (await api<{ id: number }>('POST', `/tasks/${byName('publish-report')}/trigger`, {})).id;
    failedRunId = (await api<{ id: number }>('POST', `/tasks/${byName('fails-when-run')}/trigger`, {})).id;
    runId = flowId;
    eventId = (await api<{ id: number }>('POST', '/events', { name: 'report.requested', payload: { report: 'weekly' } })).id;
    // A tasks-as-code apply, for the audit page's record of one (its changes listed open, with their values).
    await api('POST', '/config/apply', { file: `version: 1\ntasks:\n  - { name: ledger-zq, group: reports, executorApp: ${tasks[0].executorApp}, handler: noop, trigger: { kind: MANUAL }, params: { region: eu, dbPassword: x } }\n` });
    addWords('ledger-zq');
    await vi.waitFor(
      async () => {
        const run = await api<{ state: string }>('GET', `/runs/${runId}`);
        const alarms = await api<{ items: unknown[] }>('GET', '/alarms?limit=1');
        const failed = await api<{ attempt: number }>('GET', `/runs/${failedRunId}`);
        expect([run.state, alarms.items.length > 0, failed.attempt > 1]).toEqual(['SUCCEEDED', true, true]);
      },
      { timeout: 60_000, interval: 250 },
    );
    waitingRunId = (await api<{ items: Array<{ id: number }> }>('GET', '/runs?state=APPROVAL_WAIT&limit=1')).items[0].id;
    const executors = await api<Array<{ app: string; handlers: string[] }>>('GET', '/executors');
    for (const e of executors) addWords(e.app, ...e.handlers);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The user's theme preference set on its account page (kept for its next logins). */
  const setTheme = async (page: Page, theme: 'light' | 'dark') => {
    await open(page, '/account', '[data-prefs-now]');
    await page.locator('select[name="theme"]').selectOption(theme);
  };

  // The Chinese walk photographs each page on the dark theme as it goes (i18n-zh-CN-dark-*): a
  // second walk of the same pages for the photographs took 30 s more of CI.
  it('renders every page in zh-CN (the browser’s language) with no untranslated interface string, and photographs it on the dark theme', async () => {
    const found: string[] = [];
    const tenant = await loggedIn('zh-CN', 'tenant');
    expect(await tenant.page.evaluate<string>('document.documentElement.lang')).toBe('zh-CN');
    await expect.poll(() => tenant.page.locator('main h1').textContent()).toBe('任务');
    await setTheme(tenant.page, 'dark');
    for (const [name, path, waitFor] of tenantPages()) {
      await open(tenant.page, path, waitFor);
      found.push(...(await untranslated(tenant.page, name)));
      expect(await tenant.page.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('dark');
      await shot(tenant.page, `i18n-zh-CN-dark-${name}`, true);
    }
    // The cron field's reading is in Chinese too (cronstrue's zh_CN).
    await open(tenant.page, '/tasks/new', '[data-cron-description]');
    await expect.poll(() => tenant.page.locator('[data-cron-description]').textContent()).toMatch(/^[^A-Za-z]*[\u4e00-\u9fff]/);
    const operator = await loggedIn('zh-CN', 'operator');
    await setTheme(operator.page, 'dark');
    for (const [name, path, waitFor] of operatorPages) {
      await open(operator.page, path, waitFor);
      found.push(...(await untranslated(operator.page, name)));
      await shot(operator.page, `i18n-zh-CN-dark-${name}`, true);
    }
    // The operator's overview lists every tenant; a click opens that tenant's dashboard.
    await open(operator.page, '/home', 'tr[data-overview-tenant]');
    const last = (await operator.page.locator('tr[data-overview-tenant]').last().getAttribute('data-overview-tenant'))!;
    await operator.page.locator(`tr[data-overview-tenant="${last}"] button`).click();
    await operator.page.locator(`[data-dashboard="${last}"]`).waitFor();
    await operator.page.locator('.userbox button.btn-ghost:not([data-theme-switch])').click();
    await operator.page.locator('main h1').waitFor();
    await shot(operator.page, 'i18n-zh-CN-dark-login');
    // Light again, for the other tests of these users.
    await setTheme(tenant.page, 'light');
    // The login page, logged out.
    const guest = await browser.newContext({ locale: 'zh-CN' });
    const login = await guest.newPage();
    await login.goto(`${baton.url}/login`);
    await login.locator('main h1').waitFor();
    found.push(...(await untranslated(login, 'login')));
    await Promise.all([tenant.context.close(), operator.context.close(), guest.close()]);
    expect(found).toEqual([]);
    // The walk finds English when there is some: the same page in English fails it.
    const english = await loggedIn('en-US', 'tenant');
    await open(english.page, '/runs', 'tr[data-run-id]');
    expect((await untranslated(english.page, 'runs (en)')).length).toBeGreaterThan(5);
    await english.context.close();
  }, 180_000);

  it('switches language and theme from the top bar and keeps them as the user’s preferences; shows times in the chosen zone, the UTC instant on hover', async () => {
    const { context, page } = await loggedIn('en-US', 'tenant', 'UTC');
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Tasks');
    await page.getByLabel('Language').selectOption('zh-CN');
    await expect.poll(() => page.locator('main h1').textContent()).toBe('任务');
    await page.locator('[data-theme-switch]').click();
    expect(await page.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('dark');
    // Kept: a reload (and the next login) reads them back.
    await page.reload();
    await page.locator('main h1').waitFor();
    expect(await page.locator('main h1').textContent()).toBe('任务');
    expect(await page.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('dark');
    // The charts follow the theme: their canvas (which CSS does not reach) draws the dark palette's
    // light text, not the light palette's dark grey.
    await open(page, '/stats', '.chart canvas');
    // Polled: the charts draw once their data has come.
    await expect.poll(async () => { const ink = await chartInk(page); return ink.darkText > 50 && ink.lightText < ink.darkText / 5; }, { timeout: 15_000 }).toBe(true);
    await page.locator('[data-theme-switch]').click(); // light again, the page still open: the charts repaint
    await expect.poll(async () => { const ink = await chartInk(page); return ink.lightText > 50 && ink.darkText < ink.lightText / 5; }, { timeout: 15_000 }).toBe(true);
    await page.locator('[data-theme-switch]').click();
    // The display time zone: every time in it, the UTC instant on hover.
    await open(page, '/account', '[data-prefs-now]');
    await page.locator('select[name="timeZone"]').selectOption('Asia/Shanghai');
    await open(page, `/runs/${runId}`, '.timeline li.done[data-step="finished"]');
    const scheduled = page.locator('.timeline li[data-step="scheduled"] time');
    expect(await scheduled.textContent()).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3} GMT\+8$/);
    const utc = await scheduled.getAttribute('title');
    expect(utc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/);
    // The same instant: Shanghai is UTC+8 all year.
    const [shown, inUtc] = [(await scheduled.textContent())!, utc!];
    const asMs = (s: string) => Date.parse(`${s.slice(0, 23).replace(/\//g, '-').replace(' ', 'T')}Z`);
    expect(asMs(shown) - asMs(inUtc)).toBe(8 * 3600_000);
    // Back to English and light, for the other tests of this user.
    await open(page, '/account', '[data-prefs-now]');
    await page.locator('select[name="language"]').selectOption('en');
    await page.locator('select[name="theme"]').selectOption('light');
    await page.locator('select[name="timeZone"]').selectOption('UTC');
    await context.close();
  }, 60_000);

  // Each language once and each theme once: a page's theme does not depend on its language (the
  // four pairs took 90 s more of CI for nothing the two do not show). Chinese on the dark theme is
  // photographed by the Chinese walk above.
  it('photographs every page in en, light', async () => {
    const tenant = await loggedIn('en-US', 'tenant');
    await open(tenant.page, '/account', '[data-prefs-now]');
    await tenant.page.locator('select[name="language"]').selectOption('en');
    await setTheme(tenant.page, 'light');
    for (const [name, path, waitFor] of tenantPages()) {
      await open(tenant.page, path, waitFor);
      expect(await tenant.page.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('light');
      await shot(tenant.page, `i18n-en-light-${name}`, true);
    }
    const operator = await loggedIn('en-US', 'operator');
    await setTheme(operator.page, 'light');
    for (const [name, path, waitFor] of operatorPages) {
      await open(operator.page, path, waitFor);
      await shot(operator.page, `i18n-en-light-${name}`, true);
    }
    await operator.page.locator('.userbox button.btn-ghost:not([data-theme-switch])').click();
    await operator.page.locator('main h1').waitFor();
    await shot(operator.page, 'i18n-en-light-login');
    await Promise.all([tenant.context.close(), operator.context.close()]);
    expect(errors).toEqual([]);
  }, 240_000);
});
