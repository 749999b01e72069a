import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations';

const ROOT = resolve(__dirname, '../..');
/** bin/baton.js as `npx baton` runs it (a stale dist/ is rebuilt first, hence the long timeout). */
const baton = (...args: string[]) => spawnSync(process.execPath, ['bin/baton.js', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });

describe('baton usage', () => {
  it('--help lists every command and the main variables (exit 0); a command\'s --help its options', () => {
    const help = baton('--help');
    expect(help.status).toBe(0);
    for (const command of ['embedded', 'console', 'engine', 'node', 'migrate', 'cluster']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(help.stdout).toContain('BATON_DB_URL');
    const cluster = baton('cluster', '--help');
    expect(cluster.status).toBe(0);
    expect(cluster.stdout).toContain('--no-executor');
  }, 240_000);

  it('baton migrate prints the migrations this run applied, then how many the database has; again, only that it is up to date', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-migrate-'));
    try {
      const url = `sqlite:${join(dir, 'baton.sqlite')}`;
      const names = MIGRATIONS.map((m) => m.name);
      const first = baton('migrate', url);
      expect([first.status, first.stdout]).toEqual([0, `${url}: applied ${names.length}:\n  ${names.join('\n  ')}\nup to date: ${names.length} migrations\n`]);
      const again = baton('migrate', url);
      expect([again.status, again.stdout]).toEqual([0, `${url}: up to date: ${names.length} migrations\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('an unknown command or option: the usage on stderr, exit 2', () => {
    const unknown = baton('deploy');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('baton: unknown command "deploy"');
    expect(unknown.stderr).toContain('usage: baton <command>');
    const badOption = baton('cluster', '--engines', 'many');
    expect(badOption.status).toBe(2);
    expect(badOption.stderr).toContain('--engines must be an integer');
    expect(baton('console', 'extra').status).toBe(2);
  }, 240_000);

  it('a file named on the command line that cannot be read, or a mapping that is not YAML: the option and why, exit 2', () => {
    const plan = baton('plan', '-f', '/nonexistent/tasks.yaml');
    expect(plan.status).toBe(2);
    expect(plan.stderr).toContain('baton plan: -f /nonexistent/tasks.yaml: cannot be read: ENOENT');
    const mapping = baton('import', 'quartz', '--url', 'mysql://u:p@127.0.0.1:1/q', '--mapping', '/nonexistent/map.yaml');
    expect(mapping.status).toBe(2);
    expect(mapping.stderr).toContain('baton import quartz: --mapping /nonexistent/map.yaml: cannot be read: ENOENT');
    const notYaml = baton('import', 'xxl-job', '--url', 'mysql://u:p@127.0.0.1:1/x', '--mapping', resolve(__dirname, 'usage.e2e-spec.ts'));
    expect(notYaml.status).toBe(2);
    expect(notYaml.stderr).toMatch(/--mapping \S+usage\.e2e-spec\.ts: is not valid YAML or JSON: /);
  }, 240_000);

  it('baton import: a --url of another database than MySQL/MariaDB is refused at once, naming --url and the schemes read, exit 2', () => {
    const postgres = baton('import', 'quartz', '--url', 'postgres://quartz:secret@127.0.0.1:1/quartz');
    expect(postgres.status).toBe(2);
    expect(postgres.stderr.split('\n')).toContain('baton import quartz: --url "postgres://quartz:***@127.0.0.1:1/quartz": postgres:// is not read; the tables are read on MySQL or MariaDB only, with mysql:// or mariadb:// (mysql://user:pass@host:3306/database)');
    const bare = baton('import', 'xxl-job', '--url', 'db.example:3306/xxl_job');
    expect([bare.status, bare.stderr]).toEqual([2, expect.stringContaining('--url "db.example:3306/xxl_job": no scheme; ')]);
  }, 240_000);

  it("a bad command line is named once, by the command as typed: 'baton <command>: <why>', never 'baton: baton <command>: …'", () => {
    const refusals: Array<[string[], string]> = [
      [['import', 'quartz', '--url', 'mysql://u:p@127.0.0.1:1/q', '--from', '1798761600000'], 'baton import quartz: --from must be an ISO-8601 instant such as 2027-03-01T02:00:00Z (got "1798761600000")'],
      [['import', 'xxl-job'], 'baton import xxl-job: needs --url <mysql://user:pass@host:3306/database>'],
      [['import', 'nope'], 'baton import: unknown source "nope" (baton import quartz|xxl-job …)'],
      [['plan'], 'baton plan: needs -f <file>'],
      [['apply', '-f', 'x.yaml', '--force'], 'baton apply: unknown argument "--force"'],
      [['export', 'x.yaml'], 'baton export: takes -o <file> at most'],
      [['migrate', 'a', 'b'], 'baton migrate: takes one database URL at most (got 2 arguments)'],
      [['engine', 'extra'], 'baton engine: takes no arguments (got "extra"); it is configured by BATON_* variables'],
      [['cluster', '--db', 'x'], 'baton cluster: --db must be galera or replica (got "x")'],
    ];
    for (const [args, message] of refusals) {
      const refused = baton(...args);
      expect([refused.status, refused.stderr.split('\n')], args.join(' ')).toEqual([2, expect.arrayContaining([message])]);
      expect(refused.stderr).not.toMatch(/^baton[^:\n]*: baton /m);
    }
  }, 240_000);
});
