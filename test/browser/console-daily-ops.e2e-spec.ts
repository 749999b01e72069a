import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProcessConfig } from '@baton/config';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';
import { launchChromium, shot, watchErrors } from './support/chromium';
import { consoleApi } from './support/console-api';
import { ensureWebBuild } from './support/web-build';

/**
 * What an operator does every day, in the browser against the embedded app: the home dashboard,
 * a run's every attempt and its trace, run again and the log download, bulk actions on the runs list, run search,
 * run now with params, copy a task, calendars and retention.
 */

const logins = demoLogins({});
type Json = Record<string, unknown>;

// One day's operations, in order (the search finds the failures of the retried run an earlier test
// watched): a shuffled run (--sequence.shuffle) keeps its order; the files around it still move.
describe('daily operations in the web console (Chromium)', { shuffle: false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-ops-'));
  let baton: EmbeddedBaton;
  let browser: Browser;
  let page: Page;
  let token: string;
  const errors: string[] = [];
  const tasks = new Map<string, number>();

  const api = consoleApi(() => baton.url, () => token);
  /** The run once it has ended (at `attempt` or later); the timeout only bounds a hang. */
  const ended = (runId: number, attempt = 1): Promise<Json> =>
    vi.waitFor(
      async () => {
        const run = await api<{ state: string; attempt: number }>('GET', `/runs/${runId}`);
        if (!['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'].includes(run.state) || run.attempt < attempt) throw new Error(`run ${runId} still ${run.state} (attempt ${run.attempt})`);
        return run;
      },
      { timeout: 30_000, interval: 200 },
    );
  const go = async (path: string, waitFor?: string) => {
    await page.goto(`${baton.url}${path}`);
    await page.locator('main h1').first().waitFor();
    if (waitFor) await page.locator(waitFor).first().waitFor();
  };

  beforeAll(async () => {
    ensureWebBuild();
    // The operator's tracing UI, which a run's page links its trace to.
    const values = ProcessConfig.load('embedded', { ...process.env, BATON_TRACE_URL_TEMPLATE: 'http://tracing.example/trace/{traceId}' });
    baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0, values }, logins);
    token = (await api<{ token: string }>('POST', '/auth/login', logins.tenant)).token;
    for (const x of (await api<{ items: Array<{ id: number; name: string }> }>('GET', '/tasks?limit=100')).items) tasks.set(x.name, x.id);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    watchErrors(page, errors);
    await page.goto(`${baton.url}/login`);
    await page.getByLabel('Tenant').fill(logins.tenant.tenant);
    await page.getByLabel('Username').fill(logins.tenant.username);
    await page.getByLabel('Password').fill(logins.tenant.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/tasks$/);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await baton?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows every attempt of a retried run, each with its timeline and log lines, and downloads the log', async () => {
    const run = (await api<{ id: number }>('POST', `/tasks/${tasks.get('fails-when-run')}/trigger`, {})).id;
    await ended(run, 2);
    await go(`/runs/${run}`, 'details.attempt');
    expect(await page.locator('[data-attempts]').getAttribute('data-attempts')).toBe('2');
    await expect.poll(() => page.locator('#attempts-h').textContent()).toBe('Attempts (2)');
    const first = page.locator('details.attempt[data-attempt="1"]');
    await first.locator('summary').click();
    expect(await first.locator('summary').textContent()).toContain('planned failure on attempt 1');
    expect(await first.locator('.timeline li.done').count()).toBe(5);
    await shot(page, 'ops-run-attempts', true);
    const log = await page.request.get(`${baton.url}/api/runs/${run}/log`);
    expect(log.status()).toBe(200);
    expect(log.headers()['content-disposition']).toContain(`run-${run}.log`);
    expect(await page.locator('[data-download-log]').getAttribute('href')).toBe(`/api/runs/${run}/log`);
  });

  it("names a traced run's trace on its page, linked to the operator's tracing UI (BATON_TRACE_URL_TEMPLATE)", async () => {
    const run = (await api<{ id: number }>('POST', `/tasks/${tasks.get('publish-report')}/trigger`, {})).id;
    await ended(run);
    await go(`/runs/${run}`, '.timeline li.done[data-step="finished"]');
    expect(await page.locator('[data-run-trace]').count()).toBe(0); // untraced (tracing is off here): no trace row
    // The trace context a tracing console stores on the run (runs.trace_parent).
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await baton.app.get(DataSource).query('UPDATE runs SET trace_parent = ? WHERE id = ?', [`00-${traceId}-00f067aa0ba902b7-01`, run]);
    await go(`/runs/${run}`, '[data-run-trace] a');
    const link = page.locator('[data-run-trace] a');
    expect([await link.textContent(), await link.getAttribute('href')]).toEqual([traceId, `http://tracing.example/trace/${traceId}`]);
  });

  it('runs a finished run again, and cancels or runs again a selection from the runs list', async () => {
    const a = (await api<{ id: number }>('POST', `/tasks/${tasks.get('publish-report')}/trigger`, {})).id;
    const b = (await api<{ id: number }>('POST', `/tasks/${tasks.get('publish-report')}/trigger`, {})).id;
    await ended(a);
    await ended(b);
    await go(`/runs/${a}`, '.timeline li.done[data-step="finished"]');
    await page.getByRole('button', { name: 'Run again' }).click();
    await page.getByRole('link', { name: /^Open run #\d+$/ }).first().waitFor();
    await go('/runs', `[data-select-run="${b}"]`);
    await page.locator(`[data-select-run="${a}"]`).check();
    await page.locator(`[data-select-run="${b}"]`).check();
    await page.locator('[data-bulk-bar]').waitFor();
    await shot(page, 'ops-runs-bulk');
    await page.getByRole('button', { name: 'Run selected again' }).click();
    await page.locator('.toast', { hasText: '2 of 2 run(s) started again' }).waitFor();
    expect(await page.locator('[data-bulk-bar]').count()).toBe(0);
  });

  it('searches runs by error text in a time range', async () => {
    await go('/runs/search', 'form[role="search"]');
    await page.getByLabel('Text').fill('planned failure');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('tr[data-found-run]').first().waitFor();
    const texts = await page.locator('tr[data-found-run] td.mono').allTextContents();
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).toContain('planned failure');
    await page.locator('[data-searched-from]').waitFor();
    await shot(page, 'ops-run-search');
  });

  it('runs a task now with params of its own, checked against the handler’s schema; copies a task', async () => {
    await go(`/tasks/${tasks.get('sleep-2s-every-30s')}`, 'form.editor');
    await page.getByRole('button', { name: 'Run with params…' }).click();
    const panel = page.locator('[data-run-with-params]');
    await panel.locator('[data-params-schema]').waitFor(); // the handler's declared schema beside the field
    await panel.getByLabel('Params of this run (JSON)').fill('{"ms": -1}');
    await panel.getByRole('button', { name: 'Run now' }).click();
    expect(await panel.locator('[data-field-error]').textContent()).toContain('params.ms');
    await panel.getByLabel('Params of this run (JSON)').fill('{"ms": 10}');
    await panel.getByRole('button', { name: 'Run now' }).click();
    const link = page.getByRole('link', { name: /^Open run #\d+$/ }).first();
    await link.waitFor();
    const runId = Number((await link.textContent())!.replace(/\D/g, ''));
    expect((await api<{ params: unknown }>('GET', `/runs/${runId}`)).params).toEqual({ ms: 10 });

    page.once('dialog', (d) => void d.accept('sleep-copy'));
    await page.getByRole('button', { name: 'Copy…' }).click();
    await page.getByRole('heading', { name: 'Task sleep-copy' }).waitFor();
    expect(await page.getByLabel('Handler').inputValue()).toBe('sleep');
  });

  it('shows the tenant’s last hour on the home dashboard', async () => {
    await go('/home', '[data-dashboard]');
    await expect.poll(async () => Number(await page.locator('[data-kpi="runs"]').textContent())).toBeGreaterThan(0);
    expect(await page.locator('[data-kpi="executors"]').textContent()).toBe('1');
    expect(await page.locator('[data-kpi="success"]').textContent()).toMatch(/%$/);
    await shot(page, 'ops-home', true);
  });

  it('creates an exclusion calendar the task editor can name, and sets the tenant’s retention', async () => {
    await go('/calendars');
    await page.locator('input[name="calendarName"]').fill('holidays');
    await page.locator('input[name="calendarZone"]').fill('Asia/Shanghai');
    await page.locator('textarea[name="calendarDates"]').fill('2026-10-01\n2026-10-02, 2026-10-03');
    await page.getByRole('button', { name: 'Create calendar' }).click();
    await page.locator('tr[data-calendar="holidays"]').waitFor();
    expect((await api<Array<{ name: string; dates: string[] }>>('GET', '/calendars'))[0]).toMatchObject({ name: 'holidays', dates: ['2026-10-01', '2026-10-02', '2026-10-03'] });
    await shot(page, 'ops-calendars');

    await go('/retention', 'tr[data-retention="effective"]');
    await page.locator('input[name="runsMs"]').fill('3d');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.locator('.toast', { hasText: 'Retention saved' }).waitFor();
    expect((await api<{ tenant: { runsMs: number } }>('GET', '/retention')).tenant.runsMs).toBe(3 * 86_400_000);
    await shot(page, 'ops-retention');
    expect(errors).toEqual([]);
  });
});
