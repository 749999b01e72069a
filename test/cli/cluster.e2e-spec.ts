import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testBrokerUrl } from '../support/broker';
import { createEmptyTestDatabase, type EmptyTestDatabase } from '../support/databases';

const ROOT = resolve(__dirname, '../..');

/** `baton cluster` as a user runs it, on the test MariaDB and ActiveMQ (BATON_DB_URL / BATON_BROKER_URL: it starts neither). */
class ClusterCommand {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];

  constructor(env: NodeJS.ProcessEnv) {
    // Any free ports: the test must not collide with a cluster or an `npm start` on this machine.
    this.child = spawn(process.execPath, ['bin/baton.js', 'cluster', '--console-port', '0', '--engine-port', '0'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        this.lines.push(line);
        this.waiters = this.waiters.filter((waiter) => !(waiter.pattern.test(line) && (waiter.resolve(line), true)));
      });
    }
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** The first line matching `pattern` (already printed or to come); fails after `timeoutMs` or when the command exits. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${this.tail()}`)), timeoutMs);
      this.waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      void this.exited.then((code) => (clearTimeout(timer), reject(new Error(`baton cluster exited (${code}) before printing ${pattern}:\n${this.tail()}`))));
    });
  }

  /** The PIDs of the children it reported starting, by name. */
  startedPids(): Map<string, number> {
    const pids = new Map<string, number>();
    for (const line of this.lines) {
      const match = /^\[cluster\]\s+started (\S+) \(pid (\d+)\)/.exec(line);
      if (match) pids.set(match[1], Number(match[2]));
    }
    return pids;
  }

  tail(): string {
    return this.lines.slice(-40).join('\n');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('baton cluster (npm run cluster)', () => {
  let db: EmptyTestDatabase | undefined;
  const started: ClusterCommand[] = [];
  afterAll(async () => {
    for (const cluster of started) {
      for (const pid of cluster.startedPids().values()) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (cluster.child.exitCode === null) cluster.child.kill('SIGKILL');
    }
    if (db) {
      const name = new URL(db.url).pathname.slice(1);
      rmSync(join(ROOT, '.tmp', 'cluster', `${name}.json`), { force: true });
      rmSync(join(ROOT, '.tmp', 'cluster', `${name}-executor-spool.jsonl`), { force: true });
      await db.drop();
    }
  });

  it('runs a demo task on a console, two engines and the demo executor; Ctrl-C stops every child it started and exits 0; a restart keeps the tenant', async () => {
    db = await createEmptyTestDatabase('mysql');
    const env = { BATON_DB_URL: db.url, BATON_BROKER_URL: testBrokerUrl() };

    const first = new ClusterCommand(env);
    started.push(first);
    // A stale dist/ is rebuilt first (bin/baton.js), hence the long wait.
    const succeeded = await first.waitFor(/SUCCEEDED/, 240_000);
    expect(succeeded).toMatch(/first run\s+demo run #\d+ \(.+\) SUCCEEDED [\d.]+ s after the start/);
    expect(first.lines).toContainEqual(expect.stringMatching(/created tenant "demo" with its admin and the demo tasks/));
    const pids = first.startedPids();
    expect([...pids.keys()].sort()).toEqual(['console', 'engine-1', 'engine-2', 'executor']);
    // Each child's lines carry its prefix; the database and broker were given, so neither script ran.
    for (const name of pids.keys()) expect(first.lines.some((line) => line.startsWith(`[${name}]`))).toBe(true);
    expect(first.lines.some((line) => line.startsWith('[mariadb]') || line.startsWith('[activemq]'))).toBe(false);
    // The executor gets neither the broker nor the database (only engines and consoles may reach the broker).
    const environ = (name: string) => readFileSync(`/proc/${pids.get(name)}/environ`, 'utf8').split('\0');
    expect(environ('executor').filter((v) => /^BATON_(BROKER|DB)_URL=/.test(v))).toEqual([]);
    expect(environ('console')).toContain(`BATON_BROKER_URL=${env.BATON_BROKER_URL}`);

    // The printed console URL and logins work.
    const consoleUrl = /console\s+(http:\/\/\S+?)\/\s/.exec(await first.waitFor(/^\s+console\s+http/, 1000))![1];
    const login = await fetch(`${consoleUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'demo', username: 'demo', password: 'demo-password' }),
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const tasks = (await (await fetch(`${consoleUrl}/api/tasks`, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: Array<{ id: number; name: string }> };
    expect(tasks.items).toHaveLength(6);

    // A batch of more runs than a wake-up named before (100): the console names them all in one
    // wake-up, no engine refuses it (they did, and the runs waited for a poll), and every run succeeds.
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const publish = tasks.items.find((t) => t.name === 'publish-report')!;
    const batch = await fetch(`${consoleUrl}/api/runs/batch`, { method: 'POST', headers: auth, body: JSON.stringify({ runs: Array.from({ length: 150 }, () => ({ taskId: publish.id })) }) });
    expect(batch.status).toBe(200);
    const batchIds = ((await batch.json()) as { results: Array<{ run?: { id: number } }> }).results.map((r) => r.run?.id);
    expect(batchIds.every((id) => typeof id === 'number')).toBe(true);
    await vi.waitFor(
      async () => {
        const done = (await (await fetch(`${consoleUrl}/api/runs?taskId=${publish.id}&state=SUCCEEDED&limit=500`, { headers: auth })).json()) as { items: Array<{ id: number }> };
        const succeeded = new Set(done.items.map((r) => r.id));
        expect(batchIds.filter((id) => !succeeded.has(id!))).toEqual([]);
      },
      { timeout: 60_000, interval: 250 },
    );
    expect(first.lines.filter((line) => /refused \/baton\/wake/.test(line))).toEqual([]);
    expect(await first.waitFor(/^\s+executor\s+BATON_TENANT=demo BATON_EXECUTOR_SECRET=[0-9a-f]+ BATON_ENGINE_URLS=http/, 1000)).toBeTruthy();

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    for (const [name, pid] of pids) expect(alive(pid), `${name} (pid ${pid}) still alive`).toBe(false);

    // Second start: the tenant, its secret (from the state file) and its tasks are kept.
    const second = new ClusterCommand(env);
    started.push(second);
    await second.waitFor(/SUCCEEDED/, 120_000);
    expect(second.lines).toContainEqual(expect.stringMatching(/tenant "demo" kept from the previous start/));
    const secondPids = second.startedPids();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    for (const [name, pid] of secondPids) expect(alive(pid), `${name} (pid ${pid}) still alive`).toBe(false);
  }, 420_000);
});
