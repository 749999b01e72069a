import { join } from 'node:path';
import * as bcrypt from 'bcryptjs';
import type { Browser, Page } from 'playwright-core';
import { io as connect, type Socket } from 'socket.io-client';
import { AlarmEntity, UserEntity } from '@baton/persistence';
import { Cluster, sleep, waitFor } from '../../../test/cluster/support/cluster';
import { dispatchedCount } from '../../../test/cluster/support/burst';
import { startConsoleProcess, type OwnedProcess } from '../../../test/cluster/support/processes';
import { launchChromium } from '../../../test/browser/support/chromium';
import { ensureWebBuild } from '../../../test/browser/support/web-build';
import { dueTimes, openThrottles, seedRuns, settle, waitAllEnded } from '../faults/common';
import { BURST_EXECUTOR_ENV } from '../../scenarios/burst';
import { HA_ENGINE_ENV, HA_PORTS, HaServers } from './ha-servers';

/** What one kill cost. */
export interface HaKill {
  fault: string;
  /** Runs (database kill) or alarms (broker and console kills) that should have arrived. */
  count: number;
  lost: number;
  duplicated: number;
  /** The longest stretch with nothing arriving (runs ending, alarms reaching a socket) around the kill, ms. */
  pauseMs: number;
  /** Kill → the service is back: last run of the burst ended (database), first alarm raised after the kill delivered (broker), socket reconnected (console), ms. */
  recoveryMs: number;
  figures: Record<string, unknown>;
}

export interface HaKillsOptions {
  /** Runs in the burst during which the database writer is killed. */
  burst: number;
  /** Alarms per second during the broker and console kills. */
  alarmRate: number;
  /** Watch the console kill from a real Chromium page too (its pop-ups). */
  browser: boolean;
}

const PASSWORD = 'ha-password-1';

/**
 * The three kills of issue 25, on the HA servers (ha-servers.ts) with two engines, two demo
 * executors and two consoles behind HAProxy:
 * 1. SIGKILL of the Galera writer while a burst of `burst` noop runs is being dispatched (a third
 *    sent): lost / duplicated from the executors' records; pause = the longest gap between two
 *    run ends around the kill; no engine may be taken over (both stay alive, no ENGINE_DOWN).
 * 2. SIGKILL of the first ActiveMQ broker (where every engine and console is connected) while
 *    alarms flow: each alarm row's uid must reach a socket.io client of the tenant; gap = the
 *    longest silence between two alarms at that client.
 * 3. SIGKILL of the console a browser is on (HAProxy's cookie names it) while alarms flow: the
 *    socket reconnects through HAProxy to the other console; gap = kill → the next alarm at the
 *    client (and, with `browser`, the next pop-up on the page).
 */
export async function runHaKills(options: HaKillsOptions, log: (line: string) => void): Promise<HaKill[]> {
  if (options.browser) ensureWebBuild();
  const servers = await HaServers.start(log);
  let cluster: Cluster | undefined;
  const consoles: OwnedProcess[] = [];
  let browser: Browser | undefined;
  const sockets: Socket[] = [];
  let failed = true;
  try {
    const c = (cluster = await Cluster.open('ha', 'acme', { mysqlServerUrl: servers.databaseServerUrl }));
    await openThrottles(c);
    await c.ds.getRepository(UserEntity).insert({
      tenantId: c.tenant.id,
      loginTenant: c.tenant.id,
      username: 'ha-admin',
      passwordHash: bcrypt.hashSync(PASSWORD, 4),
      role: 'TENANT_ADMIN',
      disabled: false,
      createdAt: Date.now(),
    });
    const shared = { BATON_BROKER_URL: servers.brokerUrl };
    await c.startEngines(2, { ...HA_ENGINE_ENV, ...shared });
    await c.startExecutors(2, BURST_EXECUTOR_ENV);
    // Settled, not all: a console that started is stopped in `finally` even when the other failed to.
    const started = await Promise.allSettled(
      HA_PORTS.consoleBackends.map((port, i) =>
        startConsoleProcess({
          name: `console-${i + 1}`,
          logFile: join(c.dir, `console-${i + 1}.log`),
          env: { ...shared, BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: String(port), BATON_HOST: '127.0.0.1' },
          timeoutMs: 90_000,
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') consoles.push(s.value);
    const refused = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (refused) throw refused.reason;
    const token = await login(servers.consolesUrl, c.tenant.id);

    const results: HaKill[] = [];
    const done = (r: HaKill) => {
      results.push(r);
      log(`  → ${r.fault}: ${r.count} expected, lost ${r.lost}, duplicated ${r.duplicated}, pause ${r.pauseMs} ms, recovery ${r.recoveryMs} ms ${JSON.stringify(r.figures)}`);
    };
    done(await killWriter(c, servers, options.burst, log));
    done(await killBroker(c, servers, token, options.alarmRate, sockets, log));
    if (options.browser) browser = await launchChromium();
    done(await killConsole(c, servers, token, options.alarmRate, consoles, sockets, browser, log));
    failed = results.some(killFailed);
    return results;
  } finally {
    for (const s of sockets) s.disconnect();
    await browser?.close().catch(() => undefined);
    for (const p of consoles) await p.stop().catch(() => undefined);
    await cluster?.close(failed).catch(() => undefined);
    await servers.release();
  }
}

/** Logs in through HAProxy, once it has seen a console up (its health check runs every 500 ms). */
async function login(consolesUrl: string, tenant: string): Promise<string> {
  let last = '';
  const token = await waitFor(
    async () => {
      const res = await fetch(`${consolesUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant, username: 'ha-admin', password: PASSWORD }),
      });
      if (res.ok) return ((await res.json()) as { token: string }).token;
      last = `${res.status} ${await res.text()}`;
      return false;
    },
    { timeoutMs: 15_000, intervalMs: 250, what: 'a login through HAProxy', detail: () => last },
  );
  return token;
}

/** The longest interval between consecutive instants of `times` that ends after `from` (the kill). */
export function longestGap(times: number[], from: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] > from) gap = Math.max(gap, sorted[i] - sorted[i - 1]);
  return gap;
}

async function killWriter(c: Cluster, servers: HaServers, n: number, log: (line: string) => void): Promise<HaKill> {
  const due = Math.ceil((Date.now() + 4_000 + n * 0.4) / 1000) * 1000;
  await seedRuns(c, { handler: 'noop', dueAt: dueTimes(n, due) });
  const dispatched = await waitFor(
    async () => {
      const d = await dispatchedCount(c);
      return d >= n / 3 ? d : false;
    },
    { timeoutMs: 60_000, intervalMs: 20, what: `a third of the ${n} runs dispatched` },
  );
  const killedAt = Date.now();
  const node = await servers.killWriter();
  log(`  database: killed Galera node ${node} (the writer) with ${dispatched} of ${n} runs dispatched`);
  const waited = await waitAllEnded(c, n, { timeoutMs: 180_000, stallMs: 60_000, log });
  const newWriter = await servers.writer();
  const outcome = await afterDatabaseKill(c, killedAt, log);
  const restarted = Date.now();
  await servers.restartNode(node);
  log(`  database: node ${node} rejoined in ${Date.now() - restarted} ms`);
  return {
    fault: 'Galera writer SIGKILL mid-burst',
    count: n,
    ...outcome.kill,
    figures: { killedNode: node, newWriter, ...outcome.figures, allEnded: waited.complete },
  };
}

/**
 * What a database kill cost, read once the runs settled: lost and duplicated (the executors'
 * records), the pause and the recovery (from when the engines wrote each run's end: updated_at —
 * finished_at is the executor's clock, and a callback that met the failover is retried with its
 * original finish time), and the ENGINE_DOWN alarms, each printed: both engines live through a
 * failover, so any is a live engine taken over.
 */
export async function afterDatabaseKill(
  c: Cluster,
  killedAt: number,
  log: (line: string) => void,
): Promise<{ kill: Pick<HaKill, 'lost' | 'duplicated' | 'pauseMs' | 'recoveryMs'>; figures: Record<string, unknown>; ends: number[] }> {
  const { runs, t } = await settle(c, killedAt, log);
  const ends = runs.filter((r) => r.finishedAt !== null).map((r) => r.updatedAt);
  const engineDown = await despiteClosedSessions(() => c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'ENGINE_DOWN' } }));
  for (const alarm of engineDown) log(`  database: ENGINE_DOWN raised although both engines live: ${alarm.message}`);
  return {
    kill: { lost: t.lost.length, duplicated: t.duplicated.length, pauseMs: longestGap(ends, killedAt), recoveryMs: Math.max(...ends) - killedAt },
    figures: { reRuns: t.reRuns.length, states: t.states, engineDownAlarms: engineDown.length, enginesAlive: c.engines.filter((e) => e.alive).length },
    ends,
  };
}

/** A kill that lost or duplicated anything, or took a live engine over: its cluster's logs are kept. */
export function killFailed(kill: HaKill): boolean {
  return kill.lost + kill.duplicated > 0 || Number(kill.figures.engineDownAlarms ?? 0) > 0;
}

/** A tenant socket through HAProxy (websocket transport, as the web console), recording alarms. */
async function alarmSocket(url: string, token: string, cookie?: string): Promise<{ socket: Socket; arrivals: Array<{ id: string; at: number }>; events: Array<{ what: string; at: number }> }> {
  const socket = connect(url, { auth: { token }, transports: ['websocket'], reconnectionDelay: 100, reconnectionDelayMax: 500, forceNew: true, extraHeaders: cookie ? { cookie } : {} });
  const arrivals: Array<{ id: string; at: number }> = [];
  const events: Array<{ what: string; at: number }> = [];
  socket.on('alarm', (a: { id: string }) => arrivals.push({ id: a.id, at: Date.now() }));
  socket.on('disconnect', () => events.push({ what: 'disconnect', at: Date.now() }));
  socket.on('connect', () => events.push({ what: 'connect', at: Date.now() }));
  // A handshake the console could not check (HAProxy closed its database session as the writer
  // moved) says `retry`: connect again, as the web console does, for up to 30 s.
  socket.on('connect_error', (err: Error & { data?: { retry?: boolean } }) => {
    if (err.data?.retry && !socket.active) setTimeout(() => socket.connect(), 500);
  });
  await new Promise<void>((ok, fail) => {
    const until = Date.now() + 30_000;
    socket.once('connect', () => ok());
    const onError = (err: Error & { data?: { retry?: boolean } }) => {
      if (!err.data?.retry || Date.now() > until) fail(err);
      else socket.once('connect_error', onError);
    };
    socket.once('connect_error', onError);
  });
  return { socket, arrivals, events };
}

/**
 * `read` again while it fails on a session the server closed: after a Galera node's kill and
 * rejoin, HAProxy moves the writer and closes the sessions on the other node, and the pool hands
 * out each of its idle ones once ("Connection lost: The server closed the connection") before it
 * drops them. Tried once more only, a CI run met two such sessions in a row (the pool keeps up to
 * 10). Any other error is thrown at once.
 */
async function despiteClosedSessions<T>(read: (tries: number) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await read(tries);
    } catch (err) {
      const lost = err instanceof Error && /Connection lost|closed the connection|ECONNRESET|PROTOCOL_CONNECTION_LOST/.test(`${err.message} ${(err as { code?: string }).code ?? ''}`);
      if (!lost || tries >= 12) throw err;
    }
  }
}

async function alarmStream(c: Cluster, rate: number, spanMs: number, tag: string): Promise<{ from: number; n: number }> {
  const n = Math.round((rate * spanMs) / 1000);
  const from = Date.now() + 2_000;
  // A session closed under the seeding may have committed some of its tasks: a try after it seeds under names of its own.
  await despiteClosedSessions((tries) =>
    seedRuns(c, { handler: 'alarm', dueAt: dueTimes(n, from, spanMs), params: (i) => ({ message: `${tag} alarm ${i}` }), alarmSilenceMs: 0, taskPrefix: tries === 1 ? tag : `${tag}-try${tries}` }),
  );
  return { from, n };
}

async function alarmsOf(c: Cluster, since: number): Promise<AlarmEntity[]> {
  return (await despiteClosedSessions(() => c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, type: 'BUSINESS' } }))).filter((a) => a.raisedAt >= since);
}

async function killBroker(c: Cluster, servers: HaServers, token: string, rate: number, sockets: Socket[], log: (line: string) => void): Promise<HaKill> {
  const client = await alarmSocket(servers.consolesUrl, token);
  sockets.push(client.socket);
  const started = Date.now();
  const { from, n } = await alarmStream(c, rate, 12_000, 'broker');
  await sleep(from + 4_000 - Date.now());
  const killedAt = Date.now();
  servers.killBroker(0);
  log(`  broker: killed the first ActiveMQ broker (SIGKILL)`);
  await waitAllEnded(c, (await despiteClosedSessions(() => c.runs())).length, { timeoutMs: 90_000, stallMs: 30_000, log });
  const rows = await waitFor(
    async () => {
      const all = await alarmsOf(c, started);
      return all.length >= n && all.every((a) => a.publishedAt !== null) && all.every((a) => client.arrivals.some((x) => x.id === a.uid)) ? all : false;
    },
    { timeoutMs: 30_000, what: 'every alarm delivered' },
  ).catch(async () => alarmsOf(c, started));
  await sleep(1_000);
  const seen = new Map<string, number>();
  for (const a of client.arrivals) seen.set(a.id, (seen.get(a.id) ?? 0) + 1);
  const times = client.arrivals.map((a) => a.at);
  const restarted = Date.now();
  await servers.restartBroker(0);
  log(`  broker: restarted in ${Date.now() - restarted} ms`);
  return {
    fault: 'ActiveMQ broker SIGKILL while alarms flow',
    count: rows.length,
    lost: rows.filter((a) => !seen.has(a.uid ?? '')).length,
    duplicated: [...seen.values()].filter((v) => v > 1).length,
    pauseMs: longestGap(times, killedAt),
    // Kill → the first alarm raised after the kill reaching the socket (through the other broker).
    recoveryMs: firstAfter(client.arrivals, rows, killedAt) - killedAt,
    figures: { alarmsPerSecond: rate, alarmRows: rows.length, delivered: seen.size, socketEvents: client.events.length },
  };
}

/** When the first alarm raised after `t` arrived (NaN: none did). */
function firstAfter(arrivals: ReadonlyArray<{ id: string; at: number }>, rows: readonly AlarmEntity[], t: number): number {
  const raisedAfter = new Set(rows.filter((a) => a.raisedAt > t).map((a) => a.uid));
  return Math.min(...arrivals.filter((a) => raisedAfter.has(a.id)).map((a) => a.at));
}

/** The console (1 or 2) a browser with HAProxy's cookie `BATON_CONSOLE=consoleN` is on. */
function consoleOfCookie(cookie: string | undefined): number {
  const m = /console(\d)/.exec(cookie ?? '');
  if (!m) throw new Error(`no HAProxy console cookie (got "${cookie}")`);
  return Number(m[1]);
}

/**
 * Loads `url` until its heading shows, three tries of 20 s: a console whose pooled database session
 * HAProxy closed when the Galera writer moved answers one of the page's first reads 500, and the
 * page is then loaded again, as a user would.
 */
async function showPage(page: Page, url: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    await page.goto(url);
    try {
      await page.locator('main h1').first().waitFor({ timeout: 20_000 });
      return;
    } catch (err) {
      if (tries === 3) throw err;
    }
  }
}

/** A browser page on the consoles, with what it went through (for a failure's message). */
interface WatchedPage {
  page: Page;
  toasts: () => Promise<number[]>;
  consoleNo: number;
  /** Websocket opens and closes, navigations, HTTP errors and console warnings of the page, with their times. */
  trace: string[];
}

async function openPage(browser: Browser, url: string, tenant: string): Promise<WatchedPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const trace: string[] = [];
  const note = (what: string) => trace.push(`${Date.now()} ${what}`);
  page.on('websocket', (ws) => {
    note(`ws open ${new URL(ws.url()).pathname}`);
    ws.on('close', () => note('ws close'));
    ws.on('socketerror', (e) => note(`ws error ${e}`));
  });
  page.on('framenavigated', (f) => f === page.mainFrame() && note(`navigated ${new URL(f.url()).pathname}`));
  page.on('response', (r) => r.status() >= 400 && note(`HTTP ${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`));
  page.on('requestfailed', (r) => note(`failed ${r.method()} ${new URL(r.url()).pathname}: ${r.failure()?.errorText}`));
  page.on('console', (m) => m.type() === 'warning' && note(`page: ${m.text()}`));
  const res = await page.request.post(`${url}/api/auth/login`, { data: { tenant, username: 'ha-admin', password: PASSWORD } });
  if (!res.ok()) throw new Error(`browser login: ${res.status()}`);
  await showPage(page, `${url}/alarms`);
  // When a pop-up appears or a repeat is counted into one (alarms of one task collapse into one
  // pop-up, "×N"), kept by the page itself. (A string: this file is compiled without the DOM's types.)
  await page.evaluate(`
    window.__toastTimes = [];
    new MutationObserver((records) => {
      const grew = records.some((r) => {
        const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        return el && el.closest('.toasts') && (r.type === 'characterData' || r.addedNodes.length > 0);
      });
      if (grew) window.__toastTimes.push(Date.now());
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  `);
  const cookie = (await context.cookies()).find((k) => k.name === 'BATON_CONSOLE')?.value;
  return { page, consoleNo: consoleOfCookie(cookie), toasts: () => page.evaluate<number[]>('window.__toastTimes'), trace };
}

/**
 * The first pop-ups on the page after `killedAt`. The page's socket reconnects on socket.io's
 * back-off (1 s, 2 s, 4 s, 5 s…), and socket.io does not replay what it missed meanwhile: on a
 * busy machine it came back after the alarm stream had ended (a CI run waited 30 s for nothing).
 * So while no pop-up has shown, one more alarm is raised every 5 s: the wait is for the event,
 * not for a stream guessed long enough.
 */
async function popUpAfter(c: Cluster, page: WatchedPage, before: number, killedAt: number): Promise<number[]> {
  for (let probe = 1; ; probe++) {
    const shown = await waitFor(
      async () => {
        const t = await page.toasts();
        return t.length > before && t[t.length - 1] > killedAt ? t : false;
      },
      {
        timeoutMs: 5_000,
        what: 'a pop-up on the page after its console was killed',
        // What the page went through since the kill: its socket's reconnections, navigations, refusals.
        detail: async () => `page at ${page.page.url()}, killed at ${killedAt}; ${page.trace.filter((l) => Number(l.split(' ')[0]) >= killedAt - 1_000).join(' | ')}`,
      },
    ).catch((e: Error) => {
      if (probe === 12) throw e;
      return undefined;
    });
    if (shown) return shown;
    // A probe that fails (a session HAProxy closed: see despiteClosedSessions) is made again next round.
    await seedRuns(c, { handler: 'alarm', dueAt: [Date.now()], params: () => ({ message: `console probe ${probe}` }), alarmSilenceMs: 0, taskPrefix: `console-probe-${probe}` }).then(
      () => page.trace.push(`${Date.now()} probe ${probe} raised`),
      (e: Error) => page.trace.push(`${Date.now()} probe ${probe} not raised: ${e.message}`),
    );
  }
}

async function killConsole(
  c: Cluster,
  servers: HaServers,
  token: string,
  rate: number,
  consoles: OwnedProcess[],
  sockets: Socket[],
  browser: Browser | undefined,
  log: (line: string) => void,
): Promise<HaKill> {
  const page = browser ? await openPage(browser, servers.consolesUrl, c.tenant.id) : undefined;
  const victimNo = page?.consoleNo ?? 1;
  // The measuring socket goes where the page went: HAProxy's cookie pins it to the same console.
  const client = await alarmSocket(servers.consolesUrl, token, `BATON_CONSOLE=console${victimNo}`);
  sockets.push(client.socket);
  const started = Date.now();
  const { from, n } = await alarmStream(c, rate, 10_000, 'console');
  await sleep(from + 3_000 - Date.now());
  const toastsBefore = (await page?.toasts())?.length ?? 0;
  const victim = consoles[victimNo - 1];
  const killedAt = Date.now();
  process.kill(victim.pid, 'SIGKILL');
  await victim.exited;
  log(`  console: killed console-${victimNo} (pid ${victim.pid}), the one the browser was on`);
  await waitFor(() => client.arrivals.some((a) => a.at > killedAt + 50), { timeoutMs: 30_000, what: 'an alarm at the socket after the console kill' });
  const socketBackAt = client.events.find((e) => e.what === 'connect' && e.at > killedAt)?.at ?? NaN;
  const firstAlarmAfter = client.arrivals.find((a) => a.at > killedAt)?.at ?? NaN;
  let pageGapMs: number | null = null;
  let pageConsoleAfter: number | null = null;
  if (page) {
    const times = await popUpAfter(c, page, toastsBefore, killedAt);
    pageGapMs = (times.find((t) => t > killedAt) ?? NaN) - killedAt;
    log(`  console: the page since the kill: ${page.trace.filter((l) => Number(l.split(' ')[0]) >= killedAt).map((l) => `+${Number(l.split(' ')[0]) - killedAt} ms ${l.slice(l.indexOf(' ') + 1)}`).join(' | ')}`);
    await showPage(page.page, page.page.url());
    pageConsoleAfter = consoleOfCookie((await page.page.context().cookies()).find((k) => k.name === 'BATON_CONSOLE')?.value);
  }
  await waitAllEnded(c, (await despiteClosedSessions(() => c.runs())).length, { timeoutMs: 60_000, stallMs: 20_000, log });
  const rows = await alarmsOf(c, started);
  return {
    fault: 'console SIGKILL (its browsers move to the other)',
    count: n,
    // Socket.io does not replay what a socket missed while reconnecting: the page reloads the
    // alarm list; lost/duplicated here are of runs (every alarm run must end once).
    lost: rows.length < n ? n - rows.length : 0,
    duplicated: 0,
    pauseMs: firstAlarmAfter - killedAt,
    recoveryMs: socketBackAt - killedAt,
    figures: {
      alarmsPerSecond: rate,
      socketReconnectedAfterMs: socketBackAt - killedAt,
      firstAlarmAtSocketAfterMs: firstAlarmAfter - killedAt,
      firstPopUpOnPageAfterMs: pageGapMs,
      pageConsoleBefore: victimNo,
      pageConsoleAfter,
    },
  };
}
