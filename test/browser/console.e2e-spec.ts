import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WITHDRAWN_BY } from '@baton/persistence';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { launchChromium, settled, shot, watchErrors } from './support/chromium';
import { consoleApi } from './support/console-api';
import { ensureWebBuild } from './support/web-build';

/**
 * The web console in a real browser (Debian's Chromium driven by playwright-core), against the
 * embedded app (console + engine + demo executor, in this process, on a temporary SQLite file).
 * One story, in order: log in (keyboard only), create a cron task and see its next fire times,
 * watch it run, measure how fast a run state change reaches an open runs page, add a dependency
 * and see the graph (and a refused cycle), trigger a task by hand, see its failure alarm pop up,
 * acknowledge it, and check that a second tenant's browser sees none of it.
 * Screenshots of every page go to test/artifacts/screenshots/.
 */

const logins = demoLogins({});

// One user's story, told in order (a task made in one test is run in the next): a shuffled run
// (--sequence.shuffle) keeps its order; the files around it still move.
describe('web console (Chromium)', { shuffle: false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-browser-'));
  let baton: EmbeddedBaton;
  let browser: Browser;
  let demo: BrowserContext;
  let page: Page;
  let token: string;
  const errors: string[] = [];
  /** Chromium's console lines about anything the Content-Security-Policy refused, on the main page. */
  const cspViolations: string[] = [];

  const api = consoleApi(() => baton.url, () => token);
  const taskId = async (name: string): Promise<number> => {
    const page = await api<{ items: Array<{ id: number; name: string }> }>('GET', `/tasks?search=${encodeURIComponent(name)}`);
    return page.items.find((t) => t.name === name)!.id;
  };
  const go = async (p: Page, path: string) => {
    await p.goto(`${baton.url}${path}`);
    await p.locator('main h1').first().waitFor();
  };
  /** The demo admin in a browser whose language is Simplified Chinese (the user keeps no language of its own: the console follows the browser). */
  const chineseTab = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
    const zh = await context.newPage();
    zh.setDefaultTimeout(10_000);
    watchErrors(zh, errors);
    await zh.goto(`${baton.url}/login`);
    await zh.locator('input[name="tenant"]').fill(logins.tenant.tenant);
    await zh.locator('input[name="username"]').fill(logins.tenant.username);
    await zh.locator('input[name="password"]').fill(logins.tenant.password);
    await zh.locator('button[type="submit"]').click();
    await zh.waitForURL(/\/tasks$/);
    expect(await zh.locator('main h1').textContent()).toBe('任务');
    return { context, page: zh };
  };

  beforeAll(async () => {
    ensureWebBuild();
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
    token = (await api<{ token: string }>('POST', '/auth/login', logins.tenant, '')).token;
    browser = await launchChromium();
    demo = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await demo.newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 120_000);

  // A failed step leaves a picture of where it stopped.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await shot(page, `failed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the keyboard and lists the demo tasks', async () => {
    await page.goto(`${baton.url}/`);
    await page.waitForURL(/\/login/);
    await page.getByLabel('Username').waitFor();
    await shot(page, '01-login');
    // Keyboard only: the tenant field has the focus, Tab to the username, to the password, Enter submits.
    await page.keyboard.type(logins.tenant.tenant);
    await page.keyboard.press('Tab');
    await page.keyboard.type(logins.tenant.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(logins.tenant.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/tasks$/);
    await expect.poll(() => page.locator('tr[data-task]').count()).toBe(6);
    await page.locator('[data-live="on"]').waitFor();
    // Tabbing from the top reaches the skip link, then the main navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent ?? ""')).toContain('Skip to content');
    await shot(page, '02-tasks');
    // The whole app (scripts, styles, REST, socket.io) ran under the console's CSP, refused nothing.
    expect(await page.evaluate<string | null>('document.querySelector("[data-live]")?.getAttribute("data-live") ?? null')).toBe('on');
    expect(cspViolations).toEqual([]);
  });

  it('keeps the session out of scripts: an HttpOnly SameSite cookie, no token in localStorage or document.cookie; a write without the CSRF token is refused', async () => {
    const session = (await demo.cookies(baton.url)).find((c) => c.name === 'baton_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    const readable = await page.evaluate<{ local: string[]; session: string[]; cookie: string }>(
      '({ local: Object.keys(localStorage).map((k) => k + "=" + localStorage.getItem(k)), session: Object.keys(sessionStorage).map((k) => k + "=" + sessionStorage.getItem(k)), cookie: document.cookie })',
    );
    expect(JSON.stringify(readable)).not.toContain(session!.value);
    expect(readable.local).toEqual([]);
    expect(readable.cookie).not.toContain('baton_session');

    // A same-origin fetch without the header (in a tab of its own: the story's page counts console
    // errors): the browser sends the cookie, the API refuses the write.
    const target = await taskId('build-report');
    const probe = await demo.newPage();
    await probe.goto(`${baton.url}/api/auth/me`);
    const bare = await probe.evaluate<{ status: number; field: string }>(
      `fetch('/api/tasks/${target}/pause', { method: 'POST', credentials: 'same-origin' }).then(async (r) => ({ status: r.status, field: (await r.json()).errors?.[0]?.field }))`,
    );
    expect(bare).toEqual({ status: 403, field: 'X-CSRF-Token' });
    await probe.close();

    // A forged form post from a page of another origin: on the same site (another port of
    // 127.0.0.1) SameSite lets the cookie go and the CSRF token stops it (403); from another site
    // (localhost) the browser does not send the cookie at all (401).
    const forger = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form method="post" action="${baton.url}/api/tasks/${target}/pause"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((r) => forger.listen(0, '127.0.0.1', r));
    const forgerPort = (forger.address() as AddressInfo).port;
    try {
      for (const [host, status] of [['127.0.0.1', 403], ['localhost', 401]] as const) {
        const evil = await demo.newPage();
        await evil.goto(`http://${host}:${forgerPort}/`);
        await evil.waitForURL(`${baton.url}/api/tasks/${target}/pause`);
        const answer = JSON.parse((await evil.locator('body').textContent()) ?? '{}') as { statusCode?: number; message?: string };
        expect(answer.statusCode, host).toBe(status);
        if (status === 403) expect(answer.message).toContain('X-CSRF-Token');
        await evil.close();
      }
    } finally {
      await new Promise((r) => forger.close(r));
    }
    expect((await api<{ paused: boolean }>('GET', `/tasks/${target}`)).paused).toBe(false);
    // The page itself (the CSRF token in memory) still writes, and is still logged in.
    await go(page, '/tasks');
    await page.locator('[data-live="on"]').waitFor();
  });

  it('creates a cron task: the editor reads the expression, shows the next 10 fire times, and shows API errors beside the field', async () => {
    await page.getByRole('button', { name: 'New task' }).click();
    await page.waitForURL(/\/tasks\/new$/);
    await page.getByLabel('Name', { exact: true }).fill('e2e-every-2s');
    await page.getByLabel('Handler').fill('noop');
    await page.getByLabel('Cron expression').fill('*/2 * * * * *');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await expect.poll(() => page.locator('[data-cron-description]').textContent()).toMatch(/Every 2 seconds/i);
    // The preview follows the typing (debounced): wait for the 10 times of this expression in this zone.
    const fireTimes = () => page.locator('[data-fire-time]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-fire-time'))));
    await expect.poll(async () => (await fireTimes()).map((t, i, all) => (i === 0 ? 0 : t - all[i - 1]))).toEqual([0, ...Array(9).fill(2000)]);
    await expect.poll(() => page.locator('[data-fire-time]').first().textContent()).toMatch(/CES?T|GMT\+[12]/); // shown in the task's zone
    await expect.poll(() => page.locator('.cron-preview h3').textContent()).toContain('Europe/Berlin');

    // Daylight saving: 01:30 on the last Sunday of October occurs twice in London. The preview marks
    // each fire; ONCE_LATER (the default) fires at the second occurrence, TWICE at both.
    await page.getByLabel('Cron expression').fill('0 30 1 * 10 0L');
    await page.getByLabel('Time zone').fill('Europe/London');
    const marks = () => page.locator('[data-fire-time]').evaluateAll((els) => els.slice(0, 2).map((e) => e.getAttribute('data-dst')));
    await expect.poll(marks).toEqual(['REPEATED_LATER', 'REPEATED_LATER']);
    await page.getByLabel('Repeated local time (clocks go back)').selectOption('TWICE');
    await expect.poll(marks).toEqual(['REPEATED_EARLIER', 'REPEATED_LATER']);
    await page.getByLabel('Repeated local time (clocks go back)').selectOption('ONCE_LATER');
    await page.getByLabel('Cron expression').fill('*/2 * * * * *');
    await page.getByLabel('Time zone').fill('Europe/Berlin');

    // An invalid value is refused by the API, and the reason is shown beside its field.
    await page.getByLabel(/^Timeout/).fill('-5');
    await page.getByRole('button', { name: 'Create task' }).click();
    const timeoutField = page.locator('.field', { has: page.getByLabel(/^Timeout/) });
    await timeoutField.locator('[data-field-error]').waitFor();
    expect(await timeoutField.locator('[data-field-error]').textContent()).toMatch(/./);
    expect(await page.getByLabel(/^Timeout/).getAttribute('aria-invalid')).toBe('true');
    await shot(page, '03-task-editor-error');

    // Durations are typed as people say them: 1m is 60,000 ms.
    await page.getByLabel(/^Timeout/).fill('1m');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    await page.getByRole('heading', { name: 'Task e2e-every-2s' }).waitFor();
    expect((await api<{ timeoutMs: number }>('GET', `/tasks/${await taskId('e2e-every-2s')}`)).timeoutMs).toBe(60_000);
    await shot(page, '04-task-editor-cron', true);
  });

  it("wraps a long daylight-saving note within its fire time in the cron preview, narrow and wide, in English and Chinese (the second column's numbers stay clear)", async () => {
    // Every fire of this London cron follows a skipped one (the March 01:30 does not occur): each carries the longest note.
    const overlaps = async (p: Page): Promise<string[]> => {
      await p.goto(`${baton.url}/tasks/new`);
      await p.locator('input[name="expression"]').fill('0 30 1 * 3,10 0L');
      await p.locator('input[name="timeZone"]').fill('Europe/London');
      await expect.poll(() => p.locator('.fire-times li[data-dst="AFTER_SKIPPED"]').count()).toBe(10);
      await settled(p);
      // Each fire time's text lines, and the room its list number takes left of it (measured in its font):
      // no two of different fire times may meet, nor may a line leave the list.
      return p.evaluate<string[]>(`(() => {
        const list = document.querySelector('.fire-times').getBoundingClientRect();
        const probe = document.body.appendChild(document.createElement('span'));
        probe.style.cssText = 'position: absolute; visibility: hidden; white-space: pre';
        const boxes = [];
        document.querySelectorAll('.fire-times li').forEach((li, i) => {
          const range = document.createRange();
          range.selectNodeContents(li);
          const lines = [...range.getClientRects()].filter((r) => r.width > 0);
          for (const r of lines) boxes.push({ item: i + 1, what: 'text', left: r.left, right: r.right, top: r.top, bottom: r.bottom });
          probe.style.font = getComputedStyle(li).font;
          probe.textContent = (i + 1) + '. ';
          const box = li.getBoundingClientRect();
          boxes.push({ item: i + 1, what: 'number', left: box.left - probe.getBoundingClientRect().width, right: box.left, top: lines[0].top, bottom: lines[0].bottom });
        });
        probe.remove();
        const out = [];
        for (const a of boxes) {
          if (a.what === 'text' && a.right > list.right + 0.5) out.push('item ' + a.item + ' leaves the list by ' + Math.round(a.right - list.right) + ' px');
          for (const b of boxes) {
            if (a.item >= b.item) continue;
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 0.5 && y > 0.5) out.push('the ' + a.what + ' of item ' + a.item + ' meets the ' + b.what + ' of item ' + b.item);
          }
        }
        return [...new Set(out)];
      })()`);
    };
    const zh = await chineseTab();
    try {
      for (const width of [390, 900, 1280]) {
        for (const [language, p] of [['en', page], ['zh-CN', zh.page]] as const) {
          await p.setViewportSize({ width, height: 800 });
          expect(await overlaps(p), `${language} at ${width} px`).toEqual([]);
          await shot(p, `04e-cron-dst-notes-${language}-${width}`);
        }
      }
      // The notes are in each language: the Chinese one is not the English text.
      expect(await zh.page.locator('.fire-times .dst-mark').first().textContent()).toContain('夏令时');
    } finally {
      await zh.context.close();
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("knows the executors' handlers: the Executors page lists them, the editor offers them and warns about one no executor offers", async () => {
    await go(page, '/executors');
    await expect.poll(() => page.locator('tr[data-executor="demo"] [data-executor-handlers]').first().textContent()).toContain('noop');
    await go(page, `/tasks/${await taskId('e2e-every-2s')}`);
    // The offered handlers come with the executors' read, after the task's: waited for, not read at once.
    await expect
      .poll(() => page.locator('datalist#offered-handlers option').evaluateAll((els) => els.map((e) => e.getAttribute('value'))))
      .toEqual(expect.arrayContaining(['noop', 'sleep', 'long-running']));
    await page.getByLabel('Handler').fill('nooop');
    await page.getByRole('button', { name: /^Save/ }).click();
    await page.locator('.toast', { hasText: 'Saved, but: no live executor of app "demo" offers handler "nooop"' }).waitFor();
    await shot(page, '04b-handler-warning');
    await page.getByLabel('Handler').fill('noop');
    await page.getByRole('button', { name: /^Save/ }).click();
    await expect.poll(async () => (await api<{ handler: string }>('GET', `/tasks/${await taskId('e2e-every-2s')}`)).handler).toBe('noop');
  });

  it("shows a handler's params schema in the editor and the API's refusal of params that do not fit, beside the params field", async () => {
    await go(page, '/executors');
    await page.locator('tr[data-executor="demo"] [data-has-schema="sleep"]').first().waitFor();
    await go(page, '/tasks/new');
    await page.getByLabel('Name', { exact: true }).fill('e2e-sleep-checked');
    await page.getByRole('radio', { name: 'Manual' }).check();
    await page.getByLabel('Handler').fill('sleep');
    const help = page.locator('[data-params-schema="sleep"]');
    await help.waitFor();
    expect(await help.locator('[data-param="ms"]').textContent()).toMatch(/^ms integer ≥ 0 ≤ 3600000 — How long to sleep/);
    await page.getByLabel('Params (JSON)').fill('{"ms": -5, "speed": 2}');
    await page.getByRole('button', { name: 'Create task' }).click();
    const paramsField = page.locator('.field', { has: page.getByLabel('Params (JSON)') });
    await paramsField.locator('[data-field-error]').waitFor();
    const reason = await paramsField.locator('[data-field-error]').textContent();
    expect(reason).toContain("params.speed: is not a param the handler's schema allows");
    expect(reason).toContain('params.ms: must be >= 0');
    await shot(page, '04d-params-schema-error', true);
    await page.getByLabel('Params (JSON)').fill('{"ms": 50}');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    expect((await api<{ params: unknown }>('GET', `/tasks/${await taskId('e2e-sleep-checked')}`)).params).toEqual({ ms: 50 });
  });

  it('backfills an hour-old stretch of a cron task from its page, and stops a backfill', async () => {
    const local = (ms: number) => {
      const d = new Date(ms);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    };
    const from = Math.floor((Date.now() - 3_600_000) / 2_000) * 2_000; // an even second an hour ago: every 2 s fires there
    const id = await taskId('e2e-every-2s');
    await go(page, `/tasks/${id}`);
    await page.getByLabel('From (first fire)').fill(local(from));
    await page.getByLabel('To (before)').fill(local(from + 20_000));
    await page.getByRole('button', { name: 'Backfill', exact: true }).click();
    await page.locator('.toast', { hasText: 'Backfill: 10 run(s) of 10 fire(s) (0 already ran)' }).waitFor();
    await shot(page, '04c-backfill');
    await expect.poll(async () => (await api<{ items: unknown[] }>('GET', `/runs?taskId=${id}&cause=BACKFILL`)).items.length).toBe(10);
    // The notice sits over the form's buttons for 5 s: dismissed, as a user would.
    await page.locator('.toast', { hasText: 'Backfill: 10 run(s)' }).getByRole('button', { name: 'Dismiss notification' }).click();
    await page.getByRole('button', { name: 'Stop backfill' }).click();
    await page.locator('.toast', { hasText: /^Backfill stopped: \d+ run\(s\) cancelled/ }).waitFor();
  });

  it('watches the new task run on the runs page, live', async () => {
    const id = await taskId('e2e-every-2s');
    await go(page, `/runs?taskId=${id}`);
    await page.locator('tr[data-run-id][data-state="SUCCEEDED"]').first().waitFor({ timeout: 15_000 });
    // No reload: more runs of the task arrive and finish while the page stays open.
    const before = await page.locator('tr[data-run-id][data-state="SUCCEEDED"]').count();
    await expect.poll(() => page.locator('tr[data-run-id][data-state="SUCCEEDED"]').count(), { timeout: 10_000 }).toBeGreaterThan(before);
    await shot(page, '05-runs-live');
    await api('POST', `/tasks/${id}/pause`);
  });

  it('shows a run state change in an open runs page as it happens, without a reload (latency printed)', async () => {
    const task = await api<{ id: number }>('POST', '/tasks', { name: 'e2e-latency', executorApp: 'demo', handler: 'sleep', params: { ms: 300 }, trigger: { kind: 'MANUAL' } });
    await go(page, `/runs?taskId=${task.id}`);
    await page.locator('[data-live="on"]').waitFor();
    // The page records when each run row shows each state (same machine clock as the engine's updated_at).
    await page.evaluate(`(() => {
      window.seen = {};
      const record = () => {
        for (const row of document.querySelectorAll('tr[data-run-id]')) {
          const key = row.getAttribute('data-run-id') + ':' + row.getAttribute('data-state');
          if (window.seen[key] === undefined) window.seen[key] = Date.now();
        }
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
    })()`);
    const latencies: Array<{ run: number; state: string; ms: number }> = [];
    for (let i = 0; i < 5; i++) {
      const run = await api<{ id: number }>('POST', `/tasks/${task.id}/trigger`, {});
      const key = `${run.id}:SUCCEEDED`;
      // A function, not a string: a string predicate is eval'd in the page, which the console's CSP refuses.
      // The runs page does not poll: only the pushed state change can show it.
      await page.waitForFunction((k) => (globalThis as unknown as { seen: Record<string, number> }).seen[k] !== undefined, key, { timeout: 30_000 });
      const seenAt = await page.evaluate<number>(`window.seen[${JSON.stringify(key)}]`);
      const row = await api<{ updatedAt: number; state: string }>('GET', `/runs/${run.id}`);
      expect(row.state).toBe('SUCCEEDED');
      latencies.push({ run: run.id, state: 'SUCCEEDED', ms: seenAt - row.updatedAt });
    }
    const ms = latencies.map((l) => l.ms).sort((a, b) => a - b);
    console.log(
      `[browser] run state change → open runs page: ${ms.map((m) => `${m} ms`).join(', ')} (median ${ms[Math.floor(ms.length / 2)]} ms, max ${ms[ms.length - 1]} ms; ` +
        'from the engine writing SUCCEEDED to the row showing it)',
    );
    // How soon is a figure (printed), not asserted: a loaded machine stretches it.
    await shot(page, '06-runs-latency');
  });

  it('adds a dependency and draws the graph; a cycle is refused and named', async () => {
    await go(page, '/dependencies');
    await page.locator('svg.dag [data-node="build-report"]').waitFor();
    await page.getByLabel('Parent task (runs first)').selectOption({ label: 'publish-report' });
    await page.getByLabel('Child task (runs after)').selectOption({ label: 'e2e-latency' });
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.locator('svg.dag [data-edge="publish-report->e2e-latency"]').waitFor({ state: 'attached' });
    expect(await page.locator('svg.dag [data-node]').count()).toBe(3);
    // Laid out left to right: each child is to the right of its parent.
    const x = async (n: string) => (await page.locator(`svg.dag [data-node="${n}"]`).boundingBox())!.x;
    expect(await x('build-report')).toBeLessThan(await x('publish-report'));
    expect(await x('publish-report')).toBeLessThan(await x('e2e-latency'));

    await page.getByLabel('Parent task (runs first)').selectOption({ label: 'e2e-latency' });
    await page.getByLabel('Child task (runs after)').selectOption({ label: 'build-report' });
    await page.getByRole('button', { name: 'Add edge' }).click();
    const cycle = await page.locator('[data-cycle]').textContent();
    expect(cycle).toContain('→');
    for (const name of ['build-report', 'publish-report', 'e2e-latency']) expect(cycle).toContain(name);
    await shot(page, '07-dependencies');
  });

  it('triggers a task by hand and follows the run to its detail', async () => {
    await go(page, '/tasks');
    await page.getByRole('button', { name: 'Run publish-report now' }).click();
    const link = page.getByRole('link', { name: /^Open run #\d+$/ });
    await link.click();
    await page.waitForURL(/\/runs\/\d+$/);
    // The detail updates in place: the state reaches SUCCEEDED and the timeline fills without a reload.
    await page.locator('[data-run-state="SUCCEEDED"]').waitFor({ timeout: 10_000 });
    await page.locator('.timeline li.done[data-step="finished"]').waitFor();
    expect(await page.locator('.timeline li.done').count()).toBe(5);
    expect(await page.locator('[data-run-executor]').textContent()).toMatch(/^demo · http:\/\/127\.0\.0\.1:\d+ \(UP\)$/); // the executor by name, not a bare id
    // Its child (publish-report → e2e-latency) fires after it.
    await page.locator('h2:text("Child runs") + ul a').first().waitFor({ timeout: 10_000 });
    await shot(page, '08-run-detail', true);
  });

  it('shows a flow on the dependency graph: each task coloured by its run in that flow, live, and linked to it', async () => {
    const root = await api<{ id: number }>('POST', `/tasks/${await taskId('publish-report')}/trigger`, {});
    await go(page, `/dependencies?flow=${root.id}`);
    await page.locator('[data-node="publish-report"][data-run-state="SUCCEEDED"]').waitFor({ timeout: 60_000 });
    // Its child fires after it and turns green on the open page without a reload.
    await page.locator('[data-node="e2e-latency"][data-run-state="SUCCEEDED"]').waitFor({ timeout: 60_000 });
    await shot(page, '07b-flow-view');
    await page.locator('[data-node="publish-report"]').click();
    await page.waitForURL(new RegExp(`/runs/${root.id}$`));
  });

  it('adds an edge with an approval step from the form: a bad deadline is named beside its field, then the edge says who decides', async () => {
    for (const name of ['refund-check', 'refund-pay']) await api('POST', '/tasks', { name, executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
    await go(page, '/dependencies');
    await page.getByLabel('Parent task (runs first)').selectOption({ label: 'refund-check' });
    await page.getByLabel('Child task (runs after)').selectOption({ label: 'refund-pay' });
    await page.getByLabel('A person approves before the child runs').check();
    await page.getByLabel('Who may decide: a role').selectOption('TENANT_ADMIN');
    await page.getByLabel('or users (comma-separated)').fill('ops-lead');
    await page.getByLabel('Deadline (hours)').fill('0.0001'); // 360 ms: under the API's 1 s
    await page.getByLabel('At the deadline').selectOption('APPROVE');
    await page.getByRole('button', { name: 'Add edge' }).click();
    const deadline = page.locator('.field', { has: page.getByLabel('Deadline (hours)') });
    await deadline.locator('[data-field-error]').waitFor();
    expect(await deadline.locator('[data-field-error]').textContent()).toContain('at least 1000');
    expect(await api<unknown[]>('GET', `/dependencies?taskId=${await taskId('refund-pay')}`)).toEqual([]);
    await page.getByLabel('Deadline (hours)').fill('2');
    await page.getByRole('button', { name: 'Add edge' }).click();
    const cell = page.locator('[data-edge-row="refund-check->refund-pay"] [data-edge-approval="APPROVE"]');
    await cell.waitFor();
    expect(await cell.textContent()).toContain('ops-lead');
    const [edge] = await api<Array<{ approval: unknown }>>('GET', `/dependencies?taskId=${await taskId('refund-pay')}`);
    expect(edge.approval).toMatchObject({ role: 'TENANT_ADMIN', users: ['ops-lead'], timeoutMs: 7_200_000, onTimeout: 'APPROVE' });
  });

  it("shows the API's refusal of an approval step's approvers beside the approvers' fields, not in a banner, in English and Chinese", async () => {
    await api('POST', '/tasks', { name: 'refund-audit', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
    const tooLong = 'u'.repeat(101); // a username is 1 to 100 characters
    const zh = await chineseTab();
    try {
      for (const p of [page, zh.page]) {
        await go(p, '/dependencies');
        await p.locator('select[name="parent"]').selectOption({ label: 'refund-pay' });
        await p.locator('select[name="child"]').selectOption({ label: 'refund-audit' });
        await p.locator('input[name="gated"]').check();
        const users = p.locator('.field', { has: p.locator('input[name="approverUsers"]') });
        const role = p.locator('.field', { has: p.locator('select[name="approverRole"]') });
        const banner = p.locator('[data-dependency-error]');
        const add = p.locator('form.filters button[type="submit"]').first();
        // A name no user can have: the API names approval.users[1]; it is shown at the users' field.
        await p.locator('select[name="approverRole"]').selectOption('TENANT_ADMIN');
        await p.locator('input[name="approverUsers"]').fill(`ops-lead, ${tooLong}`);
        await add.click();
        await users.locator('[data-field-error]').waitFor();
        expect(await users.locator('[data-field-error]').textContent()).toMatch(/^approval\.users\[1\]: must be a username \(1 to 100 characters\)/);
        expect(await p.locator('input[name="approverUsers"]').getAttribute('aria-invalid')).toBe('true');
        expect(await banner.count()).toBe(0);
        // No one named: the role's field says a step needs a role or users, once (no banner repeating it).
        await p.locator('select[name="approverRole"]').selectOption('');
        await p.locator('input[name="approverUsers"]').fill('');
        await add.click();
        await role.locator('[data-field-error]', { hasText: 'a gate must name who may decide' }).waitFor();
        expect(await users.locator('[data-field-error]').count()).toBe(0);
        expect(await banner.count()).toBe(0);
        await shot(p, `07c-approvers-refused-${p === page ? 'en' : 'zh-CN'}`);
      }
      // The labels the reasons stand beside are in the tab's language.
      expect(await zh.page.locator('.field', { has: zh.page.locator('input[name="approverUsers"]') }).locator('label').textContent()).toMatch(/[\u4e00-\u9fff]/);
      expect(await api<unknown[]>('GET', `/dependencies?taskId=${await taskId('refund-audit')}`)).toEqual([]);
    } finally {
      await zh.context.close();
    }
  });

  it('fans a task out: SHARDED in the editor, the run page lists its shards, each told its index', async () => {
    await go(page, '/tasks/new');
    await page.getByLabel('Name', { exact: true }).fill('e2e-sharded');
    await page.getByRole('radio', { name: 'Manual' }).check();
    await page.getByLabel('Handler').fill('shard-part');
    await page.getByLabel('Runs on').selectOption('SHARDED');
    // A shard count the API refuses is shown beside its field…
    await page.getByLabel(/^Shards/).fill('0');
    await page.getByRole('button', { name: 'Create task' }).click();
    const shardsField = page.locator('.field', { has: page.getByLabel(/^Shards/) });
    await shardsField.locator('[data-field-error]').waitFor();
    expect(await shardsField.locator('[data-field-error]').textContent()).toContain('must be at least 1');
    // …and a good one saves.
    await page.getByLabel(/^Shards/).fill('3');
    await page.getByLabel('The run fails when').selectOption('ANY_SHARD_FAILS');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    const id = await taskId('e2e-sharded');
    expect((await api<{ fanOut: unknown }>('GET', `/tasks/${id}`)).fanOut).toEqual({ mode: 'SHARDED', shards: 3, failWhen: 'ANY_SHARD_FAILS' });

    const run = await api<{ id: number }>('POST', `/tasks/${id}/trigger`, { params: { items: 30 } });
    await go(page, `/runs/${run.id}`);
    await page.locator('[data-run-state="SUCCEEDED"]').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('table[aria-label="Shards"] tr[data-shard]').count()).toBe(3);
    await expect.poll(() => page.locator('table[aria-label="Shards"] [data-state="SUCCEEDED"]').count()).toBe(3);
    const result = (await api<{ result: { shards: Array<{ index: number; result: { shardIndex: number; shardTotal: number; items: number } }> } }>('GET', `/runs/${run.id}`)).result;
    expect(result.shards.map((s) => [s.index, s.result.shardIndex, s.result.shardTotal, s.result.items])).toEqual([
      [0, 0, 3, 10],
      [1, 1, 3, 10],
      [2, 2, 3, 10],
    ]);
    await shot(page, '08c-fan-out-run', true);
    // A shard's page names its place and its fan-out run.
    await page.locator('table[aria-label="Shards"] tr[data-shard="1"] a').click();
    await page.locator('[data-run-shard]').waitFor();
    expect(await page.locator('[data-run-shard]').textContent()).toBe(`2 of 3 (ctx.shardIndex 1) of fan-out run #${run.id}`);
  });

  it("tails a running run's log live: a line the handler wrote shows before the run ends", async () => {
    // build-report: long-running, 10 steps over 5 s, a log line per step.
    const run = await api<{ id: number }>('POST', `/tasks/${await taskId('build-report')}/trigger`, {});
    await go(page, `/runs/${run.id}`);
    const firstLine = page.locator('table.logs td', { hasText: 'step 1/10 done' });
    await firstLine.waitFor({ timeout: 8_000 });
    await shot(page, '08b-run-log-tail', true);
    const state = await api<{ state: string; logs: unknown[] }>('GET', `/runs/${run.id}`);
    expect(state.state).not.toBe('SUCCEEDED'); // still going: the line came with an interim callback
    await page.locator('[data-run-state="SUCCEEDED"]').waitFor({ timeout: 10_000 });
    await page.locator('table.logs td', { hasText: 'step 10/10 done' }).waitFor();
    // Each line once, whether it came live or with the final callback.
    expect(await page.locator('table.logs td', { hasText: /^step \d+\/10 done$/ }).count()).toBe(10);
  });

  it('asks before cancelling a run, and cancels it once confirmed', async () => {
    const run = await api<{ id: number }>('POST', `/tasks/${await taskId('build-report')}/trigger`, {});
    await go(page, `/runs/${run.id}`);
    const cancel = page.getByRole('button', { name: 'Cancel run' });
    await cancel.waitFor();
    const asked: string[] = [];
    page.once('dialog', (d) => void (asked.push(d.message()), d.dismiss()));
    await cancel.click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain(`Cancel run #${run.id}?`);
    expect((await api<{ state: string }>('GET', `/runs/${run.id}`)).state).not.toBe('CANCELLED'); // dismissed: nothing done
    page.once('dialog', (d) => void d.accept());
    await cancel.click();
    await page.locator('[data-run-state="CANCELLED"]').waitFor({ timeout: 10_000 });
  });

  it("shows why a run not ended waits apart from its result, and what became of a withdrawn fire's instant, in English and Chinese", async () => {
    const task = await api<{ id: number }>('POST', '/tasks', { name: 'rate-limited', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' }, params: { customerId: 'c1' }, rateLimit: { key: 'customerId', perSecond: 1 / 86_400, burst: 1 } });
    await api('POST', `/tasks/${task.id}/trigger`, {});
    const second = await api<{ id: number }>('POST', `/tasks/${task.id}/trigger`, {});
    await expect.poll(async () => (await api<{ error: string | null }>('GET', `/runs/${second.id}`)).error ?? '', { timeout: 20_000 }).toContain('Waiting for a token');
    await go(page, `/runs/${second.id}`);
    const waiting = page.locator('[data-run-waiting]');
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain('Waiting for a token');
    expect(await page.locator('main h2').allTextContents()).toContain('Why it waits');
    expect(await page.locator('[data-run-error]').count()).toBe(0);
    expect(await page.locator('[data-run-withdrawal]').count()).toBe(0);

    // As a fire an edit withdrew after it may have been sent ahead (the row as withdrawPreparedFires writes it).
    const db = new Database(join(dir, 'baton.sqlite'));
    try {
      db.prepare("UPDATE runs SET state = 'CANCELLED', withdrawal = 'UNSETTLED', error = ?, finished_at = ? WHERE id = ?").run(WITHDRAWN_BY.edit, Date.now(), second.id);
    } finally {
      db.close();
    }
    await go(page, `/runs/${second.id}`);
    const withdrawal = page.locator('[data-run-withdrawal="UNSETTLED"]');
    await withdrawal.waitFor();
    expect(await withdrawal.textContent()).toContain('waiting for its executor to confirm it never started it');
    // Ended: its error is its result again.
    expect(await page.locator('[data-run-error]').textContent()).toBe(WITHDRAWN_BY.edit);
    expect(await page.locator('[data-run-waiting]').count()).toBe(0);
    const zh = await chineseTab();
    try {
      await go(zh.page, `/runs/${second.id}`);
      expect(await zh.page.locator('[data-run-withdrawal="UNSETTLED"]').textContent()).toContain('正在等待执行器确认它没有启动');
    } finally {
      await zh.context.close();
    }
  });

  it('adds a webhook, sends a test delivery, and gets a failure alarm delivered to it by the engine', async () => {
    const got: Array<{ type: string; message: string; signature: string | undefined }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const m = JSON.parse(body) as { type: string; message: string };
        got.push({ type: m.type, message: m.message, signature: req.headers['x-baton-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    // The receiver listens on loopback: the operator allows it for the demo tenant (its executor is there too).
    const op = (await api<{ token: string }>('POST', '/auth/login', logins.operator, '')).token;
    await api('PATCH', '/operator/tenants/demo', { executorNetworks: ['127.0.0.0/8', 'localhost'] }, op);
    try {
      await go(page, '/webhooks');
      // The outbound form (the page also has the inbound webhooks' form, with a Name of its own).
      const form = page.getByRole('form', { name: 'Add a webhook' });
      await form.getByLabel('Name', { exact: true }).fill('e2e-hook');
      await form.getByLabel('URL').fill(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('[data-webhook-secret]').waitFor();
      await page.locator('tr[data-webhook="e2e-hook"]').getByRole('button', { name: 'Send test' }).click();
      await page.locator('.toast', { hasText: /^Test delivery to e2e-hook: 204 in \d+ ms/ }).waitFor();
      await shot(page, '11b-webhooks');
      await api('POST', `/tasks/${await taskId('fails-when-run')}/trigger`, {});
      await expect.poll(() => got.filter((g) => g.type === 'FAILED').length, { timeout: 15_000 }).toBeGreaterThan(0);
      expect(got.every((g) => g.signature?.startsWith('v1='))).toBe(true);
    } finally {
      await api('PATCH', '/operator/tenants/demo', { executorNetworks: null }, op);
      await new Promise((r) => server.close(r));
    }
  });

  let secondTenant: { context: BrowserContext; page: Page } | null = null;

  it("a second tenant's browser logs in and sees none of the demo tenant's tasks, runs or alarms", async () => {
    const op = (await api<{ token: string }>('POST', '/auth/login', logins.operator, '')).token;
    await api('POST', '/operator/tenants', { id: 'acme', name: 'Acme Corp', engineGroup: 'default' }, op);
    await api('POST', '/operator/users', { username: 'acme-admin', password: 'acme-password', role: 'TENANT_ADMIN', tenantId: 'acme' }, op);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const other = await context.newPage();
    watchErrors(other, errors);
    await other.goto(`${baton.url}/login`);
    await other.getByLabel('Tenant').fill('acme');
    await other.getByLabel('Username').fill('acme-admin');
    await other.getByLabel('Password').fill('acme-password');
    await other.getByRole('button', { name: 'Log in' }).click();
    await other.waitForURL(/\/tasks$/);
    await other.locator('[data-live="on"]').waitFor();
    // An empty list says what is missing and what to do next: here, a New task button in the table.
    const noTasks = other.locator('table[aria-label="Tasks"] [data-empty-state]');
    expect(await noTasks.locator('strong').textContent()).toBe('No tasks yet.');
    await noTasks.getByRole('button', { name: 'New task' }).waitFor();
    secondTenant = { context, page: other };
    await go(other, '/runs');
    const noRuns = other.locator('table[aria-label="Runs"] [data-empty-state]');
    expect(await noRuns.textContent()).toContain('No runs yet.');
    await noRuns.getByRole('link', { name: 'Tasks' }).waitFor();
    await go(other, '/executors');
    await other.locator('table[aria-label="Executors"] [data-empty-state]').getByRole('link', { name: 'Connect an executor' }).waitFor();
  });

  it('pops up a failure alarm on every page, and acknowledges it', async () => {
    const failing = await api<{ id: number }>('POST', '/tasks', {
      name: 'e2e-fails',
      executorApp: 'demo',
      handler: 'fail-n-times',
      params: { failures: 9 },
      trigger: { kind: 'MANUAL' },
      retry: { maxAttempts: 1 },
    });
    await go(page, '/executors');
    await page.locator('tr[data-executor="demo"]').waitFor();
    await shot(page, '09-executors');
    const run = await api<{ id: number }>('POST', `/tasks/${failing.id}/trigger`, {});
    const toast = page.locator('.toast[data-alarm-type="FAILED"]', { hasText: 'e2e-fails' });
    await toast.waitFor({ timeout: 15_000 });
    const seenAt = Date.now();
    const alarms = await api<{ items: Array<{ id: number; runId: number; raisedAt: number; type: string }> }>('GET', `/alarms?taskId=${failing.id}&type=FAILED`);
    const alarm = alarms.items.find((a) => a.runId === run.id)!;
    expect(alarm).toBeDefined();
    console.log(`[browser] FAILED alarm raised → pop-up shown: ≤ ${seenAt - alarm.raisedAt} ms`);
    await shot(page, '10-alarm-popup');
    // A repeat within the task's silence window (60 s by default) counts into the open pop-up.
    await api('POST', `/tasks/${failing.id}/trigger`, {});
    await toast.locator('.toast-title', { hasText: '×2' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('.toast[data-alarm-type="FAILED"]', { hasText: 'e2e-fails' }).count()).toBe(1);

    // The other tenant's open page got no pop-up and no run row.
    const other = secondTenant!.page;
    expect(await other.locator('.toast[data-alarm-type]').count()).toBe(0);
    expect(await other.locator('tr[data-run-id]').count()).toBe(0);

    await toast.getByRole('button', { name: 'Acknowledge' }).click();
    await toast.waitFor({ state: 'detached' });
    await expect.poll(async () => (await api<{ ackedAt: number | null; ackedBy: string | null }>('GET', `/alarms/${alarm.id}`)).ackedBy).toBe('demo');
    await go(page, '/alarms');
    await page.getByLabel('Status').selectOption({ label: 'Acknowledged' });
    await page.locator(`tr[data-alarm-row="${alarm.id}"]`).waitFor();
    await shot(page, '11-alarms');

    // … and the second tenant's alarm list is empty, whatever the filter.
    await go(other, '/alarms');
    await other.getByLabel('Status').selectOption({ label: 'All' });
    await other.getByText('No alarms yet.').waitFor();
    expect(await other.locator('.toast[data-alarm-type]').count()).toBe(0);
    await go(other, '/dependencies');
    expect(await other.locator('svg.dag [data-node]').count()).toBe(0);
    await shot(other, '12-second-tenant-sees-nothing');
    await secondTenant!.context.close();
  });

  it('a burst of alarms: five pop-ups at most, the rest counted with a link to the alarm list', async () => {
    const tasks = [];
    for (let i = 0; i < 7; i++) {
      tasks.push(await api<{ id: number }>('POST', '/tasks', { name: `e2e-burst-${i}`, executorApp: 'demo', handler: 'fail-n-times', params: { failures: 9 }, trigger: { kind: 'MANUAL' }, retry: { maxAttempts: 1 } }));
    }
    await go(page, '/tasks');
    // Pop-ups are what arrives live: an alarm raised before the page's socket is connected is on the list only.
    await page.locator('[data-live="on"]').waitFor();
    for (const task of tasks) await api('POST', `/tasks/${task.id}/trigger`, {});
    // Seven CRITICAL alarms, one a task: five show, (at least) two gave way to the ones after them and are counted.
    const more = page.locator('.toast-more');
    await more.waitFor({ timeout: 30_000 });
    await expect.poll(async () => Number(await more.getAttribute('data-alarms-out')), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.toast[data-alarm-type]').count()).toBe(5);
    await shot(page, '11b-alarm-burst');
    await more.getByRole('link').click();
    await page.locator('tr[data-alarm-row]').first().waitFor();
    await more.waitFor({ state: 'detached' });
    const open = await api<{ items: Array<{ id: number }> }>('GET', '/alarms?type=FAILED&acked=false');
    for (const alarm of open.items) await api('POST', `/alarms/${alarm.id}/ack`, {});
    await expect.poll(async () => page.locator('.toast[data-alarm-type]').count(), { timeout: 15_000 }).toBe(0);
  });

  it("says a task, run or event that is another tenant's (or no one's) is not found, in English and Chinese, with nothing to act on", async () => {
    const acme = (await api<{ token: string }>('POST', '/auth/login', { tenant: 'acme', username: 'acme-admin', password: 'acme-password' }, '')).token;
    const theirTask = await api<{ id: number }>('POST', '/tasks', { name: 'acme-payroll', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } }, acme);
    const theirRun = await api<{ id: number }>('POST', `/tasks/${theirTask.id}/trigger`, {}, acme);
    const theirEvent = await api<{ id: number }>('POST', '/events', { name: 'acme.payday', payload: {} }, acme);
    const pages: Array<[string, string, string]> = [
      [`/tasks/${theirTask.id}`, `Task #${theirTask.id} not found`, `未找到任务 #${theirTask.id}`],
      ['/tasks/987654321', 'Task #987654321 not found', '未找到任务 #987654321'],
      [`/runs/${theirRun.id}`, `Run #${theirRun.id} not found`, `未找到运行 #${theirRun.id}`],
      [`/events/${theirEvent.id}`, `Event #${theirEvent.id} not found`, `未找到事件 #${theirEvent.id}`],
      // Not an id at all: the console's own page for a path it has none for.
      ['/tasks/abc', 'Not found', '页面不存在'],
    ];
    const zh = await chineseTab();
    try {
      for (const [p, language] of [[page, 'en'], [zh.page, 'zh-CN']] as const) {
        for (const [path, en, chinese] of pages) {
          await p.goto(`${baton.url}${path}`);
          const notFound = p.locator('main [data-not-found]');
          await notFound.waitFor();
          await settled(p);
          expect(await notFound.locator('h1').textContent(), `${language} ${path}`).toBe(language === 'en' ? en : chinese);
          // Nothing to act on: no editor, no buttons, only the way back to the list.
          expect(await p.locator('main button, main form').count(), `${language} ${path}`).toBe(0);
          expect(await notFound.locator('a').count()).toBe(1);
        }
        await shot(p, `12b-not-found-${language}`);
      }
      // In Chinese, the sentence too (not the API's English message).
      await zh.page.goto(`${baton.url}/tasks/${theirTask.id}`);
      expect(await zh.page.locator('main [data-not-found] p').textContent()).toBe(`你的租户下没有任务 #${theirTask.id}。 所有任务`);
      // The other tenant's task is untouched and still theirs.
      expect((await api<{ name: string }>('GET', `/tasks/${theirTask.id}`, undefined, acme)).name).toBe('acme-payroll');
    } finally {
      await zh.context.close();
    }
  });

  it('shows statistics charts, the operator page, and fits a narrow window', async () => {
    await go(page, '/stats');
    await page.locator('.chart canvas').first().waitFor();
    expect(await page.locator('.chart canvas').count()).toBe(4);
    // The runs this story ran started at their instant or after: none early (issue 39).
    await expect.poll(() => page.locator('[data-kpi="early-starts"]').textContent()).toBe('0');
    await shot(page, '13-statistics', true);

    await go(page, '/operator');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Key name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText(/New key \(shown once\)/).waitFor();
    // The key is the logged-in admin's: it dies with that user's rights.
    await page.locator('table[aria-label="API keys"] [data-key-owner="demo"]').first().waitFor();

    const opContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opContext.newPage();
    watchErrors(op, errors);
    await op.goto(`${baton.url}/login`);
    await op.getByLabel('Username').fill(logins.operator.username);
    await op.getByLabel('Password').fill(logins.operator.password);
    await op.getByRole('button', { name: 'Log in' }).click();
    await op.waitForURL(/\/operator$/);
    await op.locator('table[aria-label="Engine nodes"] tbody tr').first().waitFor();
    await op.locator('table[aria-label="Tenants"] tbody tr', { hasText: 'acme' }).waitFor();
    await shot(op, '14-operator', true);
    await opContext.close();

    // Narrow window: nothing wider than the viewport but the tables' own scroll boxes.
    await page.setViewportSize({ width: 390, height: 800 });
    for (const [path, name] of [
      ['/tasks', '15-narrow-tasks'],
      ['/runs', '16-narrow-runs'],
    ] as const) {
      await go(page, path);
      await settled(page);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await shot(page, name);
    }
    expect(errors).toEqual([]);
  });

  it('an operator creates a tenant with its first admin; the admin logs in, creates a user and changes its own password', async () => {
    const login = async (p: Page, username: string, password: string, tenant = '') => {
      await p.goto(`${baton.url}/login`);
      await p.getByLabel('Tenant', { exact: true }).fill(tenant);
      await p.getByLabel('Username', { exact: true }).fill(username);
      await p.getByLabel('Password', { exact: true }).fill(password);
      await p.getByRole('button', { name: 'Log in' }).click();
    };
    const opContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opContext.newPage();
    watchErrors(op, errors);
    await login(op, logins.operator.username, logins.operator.password);
    await op.waitForURL(/\/operator$/);
    await op.getByLabel('Tenant id').fill('globex');
    await op.getByLabel('Tenant name').fill('Globex');
    await op.getByLabel('First admin username').fill('globex-admin');
    // A bad admin: refused beside its field, and no tenant is created.
    await op.getByLabel('First admin password').fill('short');
    await op.getByRole('button', { name: 'Create tenant' }).click();
    const adminPassword = op.locator('.field', { has: op.getByLabel('First admin password') });
    await adminPassword.locator('[data-field-error]').waitFor();
    // Shown once (no banner repeating it), and the row's inputs stay in line with the refused one.
    expect(await op.locator('form[aria-label="Create a tenant"] ~ .error-box').count()).toBe(0);
    const inputTop = async (label: string) => (await op.getByLabel(label).boundingBox())!.y;
    expect(await inputTop('First admin password')).toBe(await inputTop('First admin username'));
    expect(await op.locator('table[aria-label="Tenants"] tbody tr', { hasText: 'globex' }).count()).toBe(0);
    await op.getByLabel('First admin password').fill('globex-pass-1');
    await op.getByRole('button', { name: 'Create tenant' }).click();
    await op.getByText('Tenant globex created, with admin globex-admin').waitFor();
    await op.locator('table[aria-label="Tenants"] tbody tr', { hasText: 'globex' }).waitFor();
    await shot(op, '17-operator-tenant-with-admin');
    // The operator's Users page: every tenant's users, filtered to one tenant.
    await op.getByRole('link', { name: 'Users' }).click();
    await op.waitForURL(/\/users$/);
    await op.locator('tr[data-user="acme-admin"]').waitFor();
    await op.getByLabel('Tenant filter').selectOption('globex');
    await expect.poll(() => op.locator('tr[data-user]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-user')))).toEqual(['globex-admin']);
    await opContext.close();

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const admin = await context.newPage();
    watchErrors(admin, errors);
    await login(admin, 'globex-admin', 'globex-pass-1', 'globex');
    await admin.waitForURL(/\/tasks$/);
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.waitForURL(/\/users$/);
    await admin.locator('tr[data-user="globex-admin"]').waitFor();
    expect(await admin.locator('tr[data-user="acme-admin"]').count()).toBe(0); // another tenant's users stay out of sight
    await admin.getByLabel('Username', { exact: true }).fill('globex-viewer');
    await admin.getByLabel('Password', { exact: true }).fill('viewer-pass-1');
    await admin.getByLabel('Role', { exact: true }).selectOption('TENANT_VIEWER');
    await admin.getByRole('button', { name: 'Create user' }).click();
    const viewer = admin.locator('tr[data-user="globex-viewer"]');
    await viewer.waitFor();
    await admin.getByRole('button', { name: 'Disable globex-viewer' }).click();
    await viewer.getByText('disabled', { exact: true }).waitFor();
    await admin.getByRole('button', { name: 'Enable globex-viewer' }).click();
    await viewer.getByText('active', { exact: true }).waitFor();
    // Another user's password is set without the current one; one's own asks for it (the API refuses it without).
    await admin.getByRole('button', { name: 'Reset the password of globex-viewer' }).click();
    const viewerReset = admin.getByRole('form', { name: 'New password for globex-viewer' });
    await viewerReset.getByLabel('New password').waitFor();
    expect(await viewerReset.getByLabel('Current password').count()).toBe(0);
    await admin.getByRole('button', { name: 'Reset the password of globex-admin' }).click();
    const ownReset = admin.getByRole('form', { name: 'New password for globex-admin' });
    await ownReset.getByLabel('New password').fill('globex-pass-9');
    await ownReset.getByLabel('Current password').fill('not-my-password');
    await ownReset.getByRole('button', { name: 'Set password' }).click();
    const ownError = ownReset.locator('.field', { has: admin.getByLabel('Current password') }).locator('[data-field-error]');
    await ownError.waitFor();
    expect(await ownError.textContent()).toMatch(/is not your current password/);
    await admin.getByRole('button', { name: 'Reset the password of globex-admin' }).click();
    await shot(admin, '18-users');

    // Own password, from the user name in the header.
    await admin.locator('.userbox a.user').click();
    await admin.waitForURL(/\/account$/);
    await admin.getByLabel('Current password').fill('not-my-password');
    await admin.getByLabel('New password', { exact: true }).fill('globex-pass-2');
    await admin.getByLabel('Repeat the new password').fill('globex-pass-2');
    await admin.getByRole('button', { name: 'Change password' }).click();
    await admin.locator('.field', { has: admin.getByLabel('Current password') }).locator('[data-field-error]').waitFor();
    await admin.getByLabel('Current password').fill('globex-pass-1');
    await admin.getByRole('button', { name: 'Change password' }).click();
    await admin.getByText(/Password changed/).waitFor();
    await shot(admin, '19-account-password');
    // A second tab of the same browser, live: logged out in the first, it is logged out too (the
    // console drops its socket at its next session check, and the tab asks who it is), not left showing stale runs.
    const second = await context.newPage();
    watchErrors(second, errors);
    await second.goto(`${baton.url}/runs`);
    await second.locator('[data-live="on"]').waitFor();
    await admin.getByRole('button', { name: 'Log out' }).click();
    await second.waitForURL(/\/login/);
    await second.close();
    await login(admin, 'globex-admin', 'globex-pass-1', 'globex');
    await admin.getByText('Wrong tenant, username or password').waitFor();
    await login(admin, 'globex-admin', 'globex-pass-2', 'globex');
    await admin.waitForURL(/\/tasks$/);
    await context.close();
    expect(errors).toEqual([]);
  });

  it('connects an executor: the panel gives tenant, engine URL and variables; a tenant admin rotates the secret and sees it once, with a copy button', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await demo.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baton.url });
    await go(page, '/executors');
    const panel = page.getByRole('region', { name: 'Connect an executor' });
    await panel.locator('[data-connect="tenant"]', { hasText: 'demo' }).waitFor();
    await panel.locator('[data-connect="engines"]', { hasText: baton.url }).waitFor();
    const env = await panel.getByLabel('Environment of an executor').inputValue();
    expect(env).toContain('BATON_TENANT=demo');
    expect(env).toContain(`BATON_ENGINE_URLS=${baton.url}`);
    expect(env).toMatch(/BATON_EXECUTOR_SECRET=.*\nBATON_ENGINE_URLS=.*\nBATON_EXECUTOR_APP=demo/);

    await panel.getByLabel('Keep the previous secret valid for').selectOption({ label: '1 hour' });
    await panel.getByRole('button', { name: 'Rotate secret' }).click();
    const box = page.getByRole('region', { name: 'New executor secret of demo' });
    await box.getByText('Shown once — store it now.').waitFor();
    const secret = await box.locator('input[data-secret]').inputValue();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const operatorToken = (await api<{ token: string }>('POST', '/auth/login', logins.operator, '')).token;
    expect((await api<{ executorSecret?: string }>('GET', '/operator/tenants/demo', undefined, operatorToken)).executorSecret).toBeUndefined(); // shown once
    await box.locator('[data-rotation-result]', { hasText: 'The previous secret works until' }).waitFor();
    await panel.locator('[data-previous-expires]').waitFor();
    expect(await panel.getByLabel('Environment of an executor').inputValue()).toContain(`BATON_EXECUTOR_SECRET=${secret}`);

    await box.getByRole('button', { name: /copy to the clipboard/ }).click();
    await box.getByRole('button', { name: /copy to the clipboard/ }).getByText('Copied ✓').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    // The in-process demo executor still signs with the previous secret: accepted, and shown as such.
    await page.locator('tr[data-executor="demo"] [data-secret-status="PREVIOUS"]').waitFor({ timeout: 15_000 });
    await shot(page, '20-executors-connect-rotated');

    // XXL-JOB executors: a new token, once, with the properties an xxl-job-core executor needs.
    await panel.getByRole('button', { name: 'Make a new XXL-JOB token' }).click();
    const xxl = page.getByRole('region', { name: 'XXL-JOB token of demo' });
    await xxl.getByText('Shown once — store it now.').waitFor();
    const xxlToken = await xxl.locator('input[data-secret]').inputValue();
    expect(xxlToken).toMatch(/^[0-9a-f]{64}$/);
    expect(await panel.getByLabel('Properties of an XXL-JOB executor').inputValue()).toContain(`xxl.job.admin.addresses=${baton.url}/xxl-job-admin/demo\nxxl.job.accessToken=${xxlToken}`);

    // An operator creating a tenant gets its secret in the same box, and rotates any tenant's.
    const opContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opContext.newPage();
    watchErrors(op, errors);
    await op.goto(`${baton.url}/login`);
    await op.getByLabel('Username', { exact: true }).fill(logins.operator.username);
    await op.getByLabel('Password', { exact: true }).fill(logins.operator.password);
    await op.getByRole('button', { name: 'Log in' }).click();
    await op.waitForURL(/\/operator$/);
    await op.getByLabel('Tenant id').fill('initech');
    await op.getByLabel('Tenant name').fill('Initech');
    await op.getByRole('button', { name: 'Create tenant' }).click();
    const created = op.getByRole('region', { name: 'Executor secret of initech', exact: true });
    await created.getByText('Shown once — store it now.').waitFor();
    const initechSecret = await created.locator('input[data-secret]').inputValue();
    expect(initechSecret).toMatch(/^[0-9a-f]{64}$/);
    // Its engine group lists it at once (the groups' table was read before it existed).
    await op.locator('table[aria-label="Engine groups"] tbody tr', { hasText: 'initech' }).waitFor();
    await created.getByRole('button', { name: /copy to the clipboard/ }).waitFor();
    await op.getByLabel('Tenant of the secret').selectOption('initech');
    await op.getByLabel('Keep the previous secret valid for').selectOption({ label: 'none: revoke the old secret at once' });
    await op.getByRole('button', { name: 'Rotate secret' }).click();
    const rotatedByOperator = op.getByRole('region', { name: 'New executor secret of initech', exact: true });
    await rotatedByOperator.getByText('The previous secret no longer works').waitFor();
    expect(await rotatedByOperator.locator('input[data-secret]').inputValue()).not.toBe(initechSecret);
    await shot(op, '21-operator-tenant-secret');
    // Where initech's executors may live: a metadata address is refused beside the field, a list is saved.
    await op.getByLabel('Tenant of the executors').selectOption('initech');
    await op.getByLabel('Allowed executor networks').fill('10.0.0.0/8, 169.254.169.254');
    await op.getByRole('button', { name: 'Save networks' }).click();
    const networks = op.locator('.field', { has: op.getByLabel('Allowed executor networks') });
    await networks.locator('[data-field-error]', { hasText: 'always refused' }).waitFor();
    await op.getByLabel('Allowed executor networks').fill('10.0.0.0/8, *.svc.cluster.local');
    await op.getByRole('button', { name: 'Save networks' }).click();
    await op.getByText('Executors of initech limited to 10.0.0.0/8, *.svc.cluster.local').waitFor();
    await op.locator('table[aria-label="Tenants"] tbody tr', { hasText: 'initech' }).getByText('10.0.0.0/8, *.svc.cluster.local').waitFor();
    await shot(op, '22-operator-executor-networks');
    await opContext.close();
    expect(errors).toEqual([]);
  });

  it("shows tenants' load: runs due for a tenant no engine serves on the operator's load table; a tenant its own on the Executors page", async () => {
    const operatorToken = (await api<{ token: string }>('POST', '/auth/login', logins.operator, '')).token;
    await api('POST', '/operator/engine-groups', { name: 'parked' }, operatorToken);
    await api('POST', '/operator/tenants', { id: 'parked-co', name: 'Parked Co', engineGroup: 'parked', admin: { username: 'parked-admin', password: 'parked-pass-1' } }, operatorToken);
    const parked = (await api<{ token: string }>('POST', '/auth/login', { tenant: 'parked-co', username: 'parked-admin', password: 'parked-pass-1' }, '')).token;
    const task = await api<{ id: number }>('POST', '/tasks', { name: 'waits', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } }, parked);
    for (let i = 0; i < 2; i++) await api('POST', `/tasks/${task.id}/trigger`, {}, parked);

    const opContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opContext.newPage();
    watchErrors(op, errors);
    await op.goto(`${baton.url}/login`);
    await op.getByLabel('Username', { exact: true }).fill(logins.operator.username);
    await op.getByLabel('Password', { exact: true }).fill(logins.operator.password);
    await op.getByRole('button', { name: 'Log in' }).click();
    await op.waitForURL(/\/operator$/);
    const row = op.locator('table[aria-label="Load"] tr[data-load-tenant="parked-co"]');
    await expect.poll(() => row.locator('[data-load="due"]').textContent()).toBe('2');
    expect(await row.locator('[data-load="oldest"]').textContent()).not.toBe('—');
    // The oldest due run first: nothing of the others waits as long.
    expect(await op.locator('table[aria-label="Load"] tbody tr').first().getAttribute('data-load-tenant')).toBe('parked-co');
    await shot(op, '23-operator-load');
    // Its group has a tenant and no live engine: marked so on the engine groups table; the embedded engine's group is served.
    const groups = op.locator('table[aria-label="Engine groups"]');
    await groups.locator('tr[data-engine-group="parked"] [data-unserved]').waitFor();
    expect(await groups.locator('tr[data-engine-group="default"] [data-live-engines]').textContent()).toBe('1');
    expect(await groups.locator('[data-unserved]').count()).toBe(1);
    await shot(op, '23b-operator-unserved-group', true);
    await opContext.close();

    await page.setViewportSize({ width: 1280, height: 800 });
    await go(page, '/executors');
    await page.locator('table[aria-label="Load"] tr[data-load-tenant]').first().waitFor();
    expect(await page.locator('table[aria-label="Load"] tr[data-load-tenant]').count()).toBe(1);
    expect(await page.locator('table[aria-label="Load"] tr[data-load-tenant="parked-co"]').count()).toBe(0);
    // Runs sent ahead of their instant are counted apart from the executors' load (what they hold less those).
    const own = page.locator('table[aria-label="Load"] tr[data-load-tenant]').first();
    expect(await own.locator('[data-load="sent-ahead"]').textContent()).toMatch(/^\d+$/);
    expect(await own.locator('[data-load="executors"]').textContent()).toMatch(/^\d+ \/ \d+$/);
    expect(await page.locator('[data-executor-load]').first().textContent()).toMatch(/^\d+ \/ \d+$/);
    await shot(page, '24-executors-load');
    expect(errors).toEqual([]);
  });

  it('the Content-Security-Policy refused nothing on the main page during the whole story', () => {
    expect(cspViolations).toEqual([]);
  });
});
