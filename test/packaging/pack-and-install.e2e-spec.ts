import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoLogins } from '../../apps/embedded/src/demo-seed';
import { startEmbedded, type EmbeddedBaton } from '../../apps/embedded/src/start-embedded';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The executor of the SDK README, as a user writes it (the line count is reported). */
const FIVE_LINE_EXECUTOR = `const { defineHandler, runExecutor, executorOptionsFromEnv } = require('@baton/executor-sdk');

const hello = defineHandler('hello', async (ctx) => ({ greeting: \`hello \${ctx.params?.name ?? 'world'}\` }));

runExecutor({ ...executorOptionsFromEnv(), handlers: [hello] });
`;

const TYPESCRIPT_CONSUMER = `import { defineHandler, executorOptionsFromEnv, NonRetryableError, runExecutor } from '@baton/executor-sdk';
import { runHandler } from '@baton/executor-sdk/testing';
const hello = defineHandler<{ name?: string }>('hello', async (ctx) => {
  if (ctx.params.name === '') throw new NonRetryableError('empty name');
  return { greeting: \`hello \${ctx.params.name ?? 'world'}\` };
});
export const check = (): Promise<unknown> => runHandler(hello, { params: { name: 'x' } });
export const start = () => runExecutor({ ...executorOptionsFromEnv(), handlers: [hello] });
`;

interface PackedFile {
  filename: string;
  size: number;
  files: Array<{ path: string }>;
}

/**
 * The SDK as a business service gets it: both packages packed with a plain `npm pack` in their
 * folders (their prepack builds dist/), installed from the
 * tarballs alone into a fresh project outside the repository (so nothing of the repo's
 * node_modules can leak in), and the README's 5-line executor run from there against a real
 * Baton (the embedded mode) until a task of it SUCCEEDED.
 */
describe('the executor SDK packed, installed elsewhere and run (npm pack)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-sdk-pack-'));
  const project = join(dir, 'my-service');
  const children: ChildProcess[] = [];
  const packed: PackedFile[] = [];

  beforeAll(async () => {
    // A plain `npm pack` in each package's folder, dist/ emptied first: its prepack must build it.
    for (const pkg of ['protocol', 'executor-sdk']) {
      const dist = join(root, 'libs', pkg, 'dist');
      if (existsSync(dist)) for (const entry of readdirSync(dist)) rmSync(join(dist, entry), { recursive: true, force: true });
      const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', dir], { cwd: join(root, 'libs', pkg) });
      packed.push(...(JSON.parse(stdout) as PackedFile[]));
    }
    mkdirSync(project);
    await run(npm, ['init', '-y'], { cwd: project });
    const started = Date.now();
    await run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packed.map((p) => join(dir, p.filename))], { cwd: project });
    const installMs = Date.now() - started;
    // Measured for the issue's closing note.
    console.info(`[sdk-pack] tarballs ${packed.map((p) => `${p.filename} ${p.size} B`).join(', ')}; install ${installMs} ms; executor ${FIVE_LINE_EXECUTOR.trim().split('\n').length} lines`);
  }, 180_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds dist/ itself on a plain `npm pack` in the package folder (prepack)', () => {
    for (const [p, pkg] of packed.map((x) => [x, x.filename.includes('executor-sdk') ? 'executor-sdk' : 'protocol'] as const)) {
      const paths = p.files.map((f) => f.path);
      expect(paths).toEqual(expect.arrayContaining([`dist/${pkg}/src/index.js`, `dist/${pkg}/src/index.d.ts`]));
    }
  });

  it('packs built JS and types only: no sources, specs or build info', () => {
    expect(packed.map((p) => p.filename).sort()).toEqual(['baton-executor-sdk-0.1.0.tgz', 'baton-protocol-0.1.0.tgz']);
    for (const p of packed) {
      const paths = p.files.map((f) => f.path);
      expect(paths).toContain('package.json');
      expect(paths).toContain('README.md');
      expect(paths.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual([]);
      expect(paths.filter((f) => /\.spec\.|tsbuildinfo|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    }
  });

  it('installs with its declared dependencies only: no Nest, and the core entry loads neither Nest nor stompit', async () => {
    const installed = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(installed.dependencies).sort()).toEqual(['@baton/executor-sdk', '@baton/protocol']);
    expect(existsSync(join(project, 'node_modules/@nestjs'))).toBe(false);
    expect(existsSync(join(project, 'node_modules/stompit'))).toBe(true);
    const script = `const sdk = require('@baton/executor-sdk'); require('@baton/executor-sdk/testing'); const client = require('@baton/executor-sdk/client');
      const bad = Object.keys(require.cache).filter((f) => /node_modules[\\\\/](@nestjs|stompit)[\\\\/]/.test(f));
      console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), client: Object.keys(client).sort(), bad }));`;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: project });
    const { exports, client, bad } = JSON.parse(stdout) as { exports: string[]; client: string[]; bad: string[] };
    expect(bad).toEqual([]);
    expect(client).toEqual(['BatonApiError', 'BatonClient']);
    expect(exports).toEqual(expect.arrayContaining(['defineHandler', 'runExecutor', 'executorOptionsFromEnv', 'NonRetryableError', 'createExecutorServer', 'EXECUTOR_ENV']));
    // The Nest entry needs the optional peers: without them it says which one is missing.
    await expect(run(process.execPath, ['-e', "require('@baton/executor-sdk/nest')"], { cwd: project })).rejects.toThrow(/Cannot find module '@nestjs\/(common|core)'/);
  });

  it('type-checks a TypeScript consumer against the installed types', async () => {
    writeFileSync(join(project, 'executor.ts'), TYPESCRIPT_CONSUMER);
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', join(root, 'node_modules/@types'), 'executor.ts'];
    await run(process.execPath, [tsc, ...args], { cwd: project }).catch((err: { stdout?: string }) => {
      throw new Error(`tsc: ${err.stdout ?? String(err)}`);
    });
    // A hang guard, not a measure: tsc alone takes seconds, and over a minute on a machine at load ~18.
  }, 300_000);

  describe('against a running Baton (embedded mode)', () => {
    const logins = demoLogins({});
    let baton: EmbeddedBaton;
    let auth: { authorization: string };

    beforeAll(async () => {
      baton = await startEmbedded({ databaseUrl: `sqlite:${join(dir, 'baton.sqlite')}`, host: '127.0.0.1', port: 0 }, logins);
      const login = await request(baton.url).post('/api/auth/login').send(logins.tenant).expect(200);
      auth = { authorization: `Bearer ${login.body.token}` };
    }, 60_000);
    afterAll(async () => baton?.close());

    it('runs a task on the 5-line executor until SUCCEEDED, and the executor stops cleanly on SIGTERM', async () => {
      // The secret as a tenant admin gets it: rotated (the demo executor keeps the previous one during the overlap).
      const rotated = await request(baton.url).post('/api/executors/secret/rotate').set(auth).send({}).expect(200);
      const secret = rotated.body.executorSecret as string;
      writeFileSync(join(project, 'executor.js'), FIVE_LINE_EXECUTOR);
      const child = spawn(process.execPath, ['executor.js'], {
        cwd: project,
        env: { PATH: process.env.PATH, BATON_TENANT: 'demo', BATON_EXECUTOR_SECRET: secret, BATON_ENGINE_URLS: baton.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

      await waitFor(async () => /executor default of tenant demo listening on http:\/\/127\.0\.0\.1:\d+/.test(output), 'the executor to listen', () => output);
      await waitFor(
        async () => {
          const executors = (await request(baton.url).get('/api/executors').set(auth).expect(200)).body as Array<{ app: string; state: string }>;
          return executors.some((e) => e.app === 'default' && e.state === 'UP');
        },
        'the executor to register (app default, UP)',
        () => output,
      );

      const task = await request(baton.url)
        .post('/api/tasks')
        .set(auth)
        .send({ name: 'hello-from-a-tarball', executorApp: 'default', handler: 'hello', params: { name: 'tarball' }, trigger: { kind: 'MANUAL' } })
        .expect(201);
      const triggered = await request(baton.url).post(`/api/tasks/${task.body.id}/trigger`).set(auth).send({}).expect(201);
      let runState = '';
      let runBody: { state: string; result: unknown } | undefined;
      await waitFor(
        async () => {
          runBody = (await request(baton.url).get(`/api/runs/${triggered.body.id}`).set(auth).expect(200)).body;
          runState = runBody!.state;
          return ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'].includes(runState);
        },
        'the run to end',
        () => `${runState}\n${output}`,
      );
      expect(runBody).toMatchObject({ state: 'SUCCEEDED', result: { greeting: 'hello tarball' } });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }, 60_000);
  });
});

/** Until `check` holds; the timeout only bounds a hang, and the failure shows `detail` (the process's output). */
async function waitFor(check: () => Promise<boolean>, what: string, detail: () => string, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`waiting for ${what}:\n${detail()}`);
    },
    { timeout: timeoutMs, interval: 200 },
  );
}
