import { join } from 'node:path';
import { Cluster, waitFor } from '../../test/cluster/support/cluster';
import { invocationCheck, percentile } from '../../test/cluster/support/figures';
import { startConsoleProcess } from '../../test/cluster/support/processes';
import { insertApiKey } from '../../test/console/console-test-kit';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';
import { AT_DEFAULTS } from './run-now';

/**
 * Idempotency across console processes (issue 42's target: 10,000 duplicate submissions over two
 * consoles start exactly one run each). Two console processes on one MariaDB, 2 engines and 2 demo
 * executors at their defaults. Each of `--keys` idempotency keys (default 10,000) is sent to both
 * consoles at the same moment — the race a client retrying on another console makes — as a
 * trigger (`POST /api/tasks/:id/trigger` with an `Idempotency-Key` header) and as an event
 * (`POST /api/events` with `idempotencyKey`), `--concurrency` keys in flight (default 32, so 64
 * requests). Checked per key: both answers name the same run (the same event and its runs),
 * exactly one of them made it (201, the other 200); per series: as many runs in the database as
 * keys, each started once by a handler (the executors' own records), none lost.
 */

type Series = 'triggers' | 'events';

interface Answer {
  status: number;
  /** The run a trigger answered, or the runs an event's answer lists. */
  runIds: number[];
  /** The event's id (events only). */
  eventId?: number;
  ms: number;
}

interface SeriesFigures {
  keys: number;
  submissions: number;
  seconds: number;
  perSecond: number;
  answerP50: number;
  answerP99: number;
  refused: number;
  /** Keys whose two answers named different runs (or events), or did not show exactly one 201. */
  mismatched: number;
  runsInDatabase: number;
  started: number;
  duplicated: number;
  lost: number;
}

export const idempotency: Scenario = {
  name: 'idempotency',
  description: 'each idempotency key sent to two console processes at once, as a trigger and as an event: exactly one run per key, started once',
  options: '--keys=N (default 10000) --concurrency=N (keys in flight, default 32) --series=triggers,events --tag=…',
  quickSet: false,
  async run({ args, log }) {
    const keys = Number(option(args, 'keys') ?? 10_000);
    const concurrency = Number(option(args, 'concurrency') ?? 32);
    const series = (option(args, 'series') ?? 'triggers,events').split(',') as Series[];
    const tag = option(args, 'tag') ?? '';
    const c = await Cluster.open('idem');
    let failed = true;
    try {
      await c.startEngines(2, AT_DEFAULTS);
      const executors = await c.startExecutors(2);
      const consoleEnv = { BATON_DB_URL: c.db.url, BATON_CONSOLE_PORT: '0', BATON_HOST: '127.0.0.1' };
      const consoles = await Promise.all(
        ['console-1', 'console-2'].map((name) => startConsoleProcess({ name, logFile: join(c.dir, `${name}.log`), env: consoleEnv })),
      );
      const apis = consoles.map((p) => `${p.url}/api`);
      const auth = await insertApiKey(c.ds, c.tenant.id, 'TENANT_ADMIN');
      const post = async (api: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
        const res = await fetch(`${api}${path}`, { method: 'POST', headers: { ...auth, ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      };
      const created = async (path: string, body: unknown) => {
        const res = await post(apis[0], path, body);
        if (res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        return res.body.id as number;
      };
      const charge = await created('/tasks', { name: 'charge', executorApp: 'demo', handler: 'noop', trigger: { kind: 'MANUAL' } });
      const onPaid = await created('/tasks', { name: 'on-paid', executorApp: 'demo', handler: 'noop', trigger: { kind: 'EVENT', event: 'order.paid' } });

      const refusals: string[] = [];
      /** One key sent to a console: the trigger's run, or the event with the runs it started. */
      const send = async (s: Series, api: string, key: string, k: number): Promise<Answer> => {
        const t0 = performance.now();
        const res =
          s === 'triggers'
            ? await post(api, `/tasks/${charge}/trigger`, { params: { k } }, { 'idempotency-key': key })
            : await post(api, '/events', { name: 'order.paid', payload: { k }, idempotencyKey: key });
        const ms = performance.now() - t0;
        if (res.status >= 300) {
          if (refusals.length < 5) refusals.push(`${s} ${key}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          return { status: res.status, runIds: [], ms };
        }
        if (s === 'triggers') return { status: res.status, runIds: [res.body.id as number], ms };
        return { status: res.status, runIds: res.body.runIds as number[], eventId: res.body.id as number, ms };
      };

      const runSeries = async (s: Series): Promise<SeriesFigures> => {
        const answers: Array<[Answer, Answer]> = new Array(keys);
        let next = 0;
        const t0 = Date.now();
        // `concurrency` lanes, each sending its next key to both consoles at once.
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            for (let k = next++; k < keys; k = next++) {
              const key = `${s}-${k}`;
              answers[k] = (await Promise.all(apis.map((api) => send(s, api, key, k)))) as [Answer, Answer];
            }
          }),
        );
        const seconds = (Date.now() - t0) / 1000;
        const all = answers.flat();
        const refused = all.filter((a) => a.status >= 300).length;
        const mismatched = answers.filter(([a, b]) => {
          const statuses = [a.status, b.status].sort().join(',');
          const same = a.runIds.length === 1 && b.runIds.length === 1 && a.runIds[0] === b.runIds[0] && a.eventId === b.eventId;
          return statuses !== '200,201' || !same;
        }).length;
        for (const r of refusals.splice(0)) log(`  refused: ${r}`);
        const odd = answers.find(([a, b]) => [a.status, b.status].sort().join(',') !== '200,201' || a.runIds.join() !== b.runIds.join() || a.eventId !== b.eventId);
        if (odd) log(`  a mismatched key: ${JSON.stringify(odd)}`);
        const task = s === 'triggers' ? charge : onPaid;
        const runsInDatabase = Number(((await c.ds.query('SELECT COUNT(*) AS n FROM runs WHERE task_id = ?', [task])) as Array<{ n: unknown }>)[0].n);
        const runIds = [...new Set(all.flatMap((a) => a.runIds))];
        const startedOnce = () => {
          const check = invocationCheck(c.records(executors), runIds);
          return check.missing.length === 0 ? check : false;
        };
        const check = await waitFor(startedOnce, { timeoutMs: 120_000, intervalMs: 500, what: `the ${runIds.length} runs of ${s} started` }).catch(() => invocationCheck(c.records(executors), runIds));
        const ms = all.map((a) => a.ms);
        return {
          keys,
          submissions: all.length,
          seconds: +seconds.toFixed(1),
          perSecond: Math.round(all.length / seconds),
          answerP50: Math.round(percentile(ms, 50)),
          answerP99: Math.round(percentile(ms, 99)),
          refused,
          mismatched,
          runsInDatabase,
          started: runIds.length - check.missing.length,
          duplicated: check.duplicated.length,
          lost: check.missing.length,
        };
      };

      const figures: Partial<Record<Series, SeriesFigures>> = {};
      for (const s of series) {
        figures[s] = await runSeries(s);
        const f = figures[s]!;
        log(`  ${s}: ${f.submissions} submissions in ${f.seconds} s (${f.perSecond}/s), ${f.runsInDatabase} runs for ${f.keys} keys, ${f.mismatched} keys mismatched, ${f.duplicated} started twice, ${f.lost} lost`);
      }
      const rows = series.map((s) => {
        const f = figures[s]!;
        const met = f.runsInDatabase === f.keys && f.mismatched === 0 && f.refused === 0 && f.duplicated === 0 && f.lost === 0;
        return [s, f.keys, f.submissions, f.perSecond, `${f.answerP50} / ${f.answerP99}`, f.refused, f.mismatched, f.runsInDatabase, f.started, f.duplicated, f.lost, met ? 'met' : 'missed'];
      });
      log(
        table(['series', 'keys', 'submissions (2 consoles)', 'per s', 'answer p50 / p99 ms', 'refused', 'keys mismatched', 'runs in db', 'started', 'started twice', 'lost', 'one run a key, once'], rows),
      );
      writeResult(`idempotency${tag}.json`, {
        machine: machine(),
        plan: { keys, concurrency, series, consoles: 2, engines: "2, Baton's defaults", executors: "2 demo, the SDK's defaults" },
        figures,
      });
      failed = false;
      return series.map((s) => {
        const f = figures[s]!;
        return [`idempotency${tag}: ${s}`, `${f.keys} keys × 2 consoles: ${f.runsInDatabase} runs, ${f.mismatched} mismatched, ${f.duplicated} started twice, ${f.lost} lost (${f.perSecond} submissions/s)`];
      });
    } finally {
      await c.close(failed);
    }
  },
};
