/**
 * `baton export | plan | apply` as a CI pipeline runs them: bin/baton.js against a console's API
 * with a tenant API key from the environment. Promote a tenant's tasks from "staging" to
 * "production": export one, plan and apply on the other, and a failing apply exits 1 naming the
 * place in the file and changes nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/databases';
import { runBaton, runShell } from './run-baton';
import { cronTask, listenOnLoopback, seedTenant, startConsole, type ConsoleTestApp, type SeededTenant } from '../console/console-test-kit';


describe('baton export | plan | apply', () => {
  const db = useTestDatabase('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'baton-tasks-as-code-'));
  let t: ConsoleTestApp;
  let url: string;
  let staging: SeededTenant;
  let production: SeededTenant;

  /** bin/baton.js with the tenant's key: the console answering it lives in this process. */
  const baton = (key: Record<string, string>, ...args: string[]) => runBaton({ BATON_API_URL: url, BATON_API_KEY: key['X-API-Key'] }, ...args);

  beforeAll(async () => {
    t = await startConsole(db.dataSource);
    url = await listenOnLoopback(t);
    staging = await seedTenant(t, db.dataSource, 'staging');
    production = await seedTenant(t, db.dataSource, 'production');
    await t.http().post('/api/tasks').set(staging.admin).send(cronTask('nightly'));
    await t.http().post('/api/tasks').set(staging.admin).send(cronTask('hourly', { trigger: { kind: 'FIXED_RATE', intervalMs: 3_600_000 } }));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('promotes staging to production: export, plan, apply, and a second plan finds nothing to do', async () => {
    const file = join(dir, 'tasks.yaml');
    const exported = await baton(staging.adminKey, 'export', '-o', file);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('name: nightly');
    const plan = await baton(production.adminKey, 'plan', '-f', file);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('+ task "hourly" (create)');
    expect(plan.stdout).toContain('+ task "nightly" (create)');
    expect(plan.stdout).toContain('2 to create, 0 to update, 0 to delete.');
    const apply = await baton(production.adminKey, 'apply', '-f', file);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Applied.');
    expect((await baton(production.adminKey, 'plan', '-f', file)).stdout).toContain('No changes');
    const exportedAgain = await baton(production.adminKey, 'export');
    expect(exportedAgain.stdout.replace(/^# .*\n/gm, '')).toBe(readFileSync(file, 'utf8').replace(/^# .*\n/gm, ''));
  }, 240_000);

  it('a refused apply exits 1 naming the place in the file, each refusal once, and changes nothing', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'version: 1\ntasks:\n  - name: broken\n    executorApp: billing\n    handler: closeDay\n    trigger: { kind: CRON, expression: "0 0 99 * * *", timeZone: UTC }\n');
    const apply = await baton(production.adminKey, 'apply', '-f', file);
    expect(apply.code).toBe(1);
    /** The refusal the CLI printed: its first line, then each field at fault once. */
    const refusal = (stderr: string) => stderr.slice(stderr.indexOf('baton: POST')).trim().split('\n');
    expect(refusal(apply.stderr)).toEqual(['baton: POST /api/config/apply: 400', expect.stringMatching(/^ {2}tasks\[0\]\.trigger\.expression: /)]);
    expect((await baton(production.adminKey, 'export')).stdout).not.toContain('broken');
    // A YAML alias: the file's refusal says why (a billion laughs: docs/MANUAL.md).
    writeFileSync(file, 'version: 1\nretention: &keep { runsMs: 86400000 }\ncalendars: [*keep]\n');
    const plan = await baton(production.adminKey, 'plan', '-f', file);
    expect(refusal(plan.stderr)).toEqual(['baton: POST /api/config/plan: 400', '  file: YAML anchors and aliases (&name, *name) are not accepted in a tasks file: &keep at line 2, column 18']);
  }, 240_000);

  it('export: an output file that cannot be written names -o and why (exit 2); a reader that closes the pipe early costs no stack', async () => {
    const unwritable = await baton(staging.adminKey, 'export', '-o', join(dir, 'missing', 'tasks.yaml'));
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(`baton export: -o ${join(dir, 'missing', 'tasks.yaml')}: cannot be written: ENOENT`);
    // `true` reads nothing and is gone long before the export is fetched: the write meets a closed pipe.
    const piped = await runShell({ BATON_API_URL: url, BATON_API_KEY: staging.adminKey['X-API-Key'] }, `"${process.execPath}" bin/baton.js export | true; echo "exit $\{PIPESTATUS[0]}"`);
    expect(piped.stderr).not.toContain('EPIPE');
    expect(piped.stdout.trim()).toBe('exit 0');
  }, 240_000);

  it('names what is missing: no API key, no file', async () => {
    const noKey = await baton({ 'X-API-Key': '' }, 'export');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('BATON_API_KEY');
    const noFile = await baton(production.adminKey, 'apply');
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('needs -f <file>');
  }, 240_000);
});
