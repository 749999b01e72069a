import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@baton/persistence';
import { percentile } from '../../test/cluster/support/figures';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from '../../test/support/mysql-admin';
import { cronTask, seedTenant, startConsole } from '../../test/console/console-test-kit';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * What a task save costs through the API (issue 23: the audit record and the task version are
 * written in the save's transaction): `PUT`-like `PATCH /api/tasks/{id}` from an API client,
 * one at a time, `--saves=N` (default 300) after 30 untimed, on an embedded SQLite file and,
 * when BATON_TEST_MYSQL_URL is set, on a fresh MariaDB database. p50 / p99 / mean in ms.
 *
 * Before/after: scripts/bench-audit-save.sh runs this same file in a checkout of the commit
 * before the audit log (`--tag=before`) and in this one (`--tag=after`), one after the other.
 * The figures on a shared machine are noisy: compare the two of one window.
 */
export const auditSave: Scenario = {
  name: 'audit-save',
  description: 'latency of a task save through the API (PATCH /api/tasks/{id}): p50/p99 on SQLite and MariaDB; before/after the audit record via scripts/bench-audit-save.sh',
  standalone: true,
  quickSet: false,
  async run({ args, log }) {
    const saves = Number(option(args, 'saves') ?? 300);
    const tag = option(args, 'tag') ?? 'current';
    const rows: Array<Array<string | number>> = [];
    const results: Record<string, unknown> = {};
    const targets: Array<{ kind: string; url: () => Promise<{ url: string; drop: () => Promise<void> }> }> = [
      {
        kind: 'sqlite',
        url: async () => {
          const dir = mkdtempSync(join(tmpdir(), 'baton-audit-save-'));
          return { url: `sqlite:${join(dir, 'baton.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
        },
      },
    ];
    const mysqlServer = process.env.BATON_TEST_MYSQL_URL;
    if (mysqlServer) {
      targets.push({
        kind: 'mariadb',
        url: async () => {
          const name = await createMysqlTestDatabase(mysqlServer);
          return { url: mysqlDatabaseUrl(mysqlServer, name), drop: () => dropMysqlDatabase(mysqlServer, name) };
        },
      });
    }
    for (const target of targets) {
      const db = await target.url();
      const dataSource = await openDatabase(db.url);
      const t = await startConsole(dataSource, Date.now());
      try {
        const tenant = await seedTenant(t, dataSource, 'bench');
        const created = await t.http().post('/api/tasks').set(tenant.adminKey).send(cronTask('bench-save'));
        if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
        const id = created.body.id as number;
        const times: number[] = [];
        for (let i = 0; i < saves + 30; i++) {
          const since = performance.now();
          const res = await t.http().patch(`/api/tasks/${id}`).set(tenant.adminKey).send({ priority: i % 100, params: { region: `r${i}` } });
          const ms = performance.now() - since;
          if (res.status !== 200) throw new Error(`save: ${res.status} ${JSON.stringify(res.body)}`);
          if (i >= 30) times.push(ms);
        }
        const figures = { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
        log(`audit-save ${tag} ${target.kind}: p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms`);
        rows.push([`${tag} ${target.kind}`, figures.p50.toFixed(2), figures.p99.toFixed(2), figures.mean.toFixed(2)]);
        results[target.kind] = figures;
      } finally {
        await t.close();
        await dataSource.destroy();
        await db.drop();
      }
    }
    console.log(`\nTask save through the API, ${saves} saves (ms)\n${table(['case', 'p50', 'p99', 'mean'], rows)}`);
    writeResult(`audit-save-${tag}.json`, { machine: machine(), saves, tag, results });
    return rows.map((r): [string, string] => [`audit-save ${r[0]}`, `p50 ${r[1]} ms, p99 ${r[2]} ms`]);
  },
};
