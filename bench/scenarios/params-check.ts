import { monitorEventLoopDelay } from 'node:perf_hooks';
import Ajv from 'ajv';
import { ParamsCheckWorkers } from '../../apps/console/src/tasks/params-check-thread';
import { percentile } from '../../test/cluster/support/figures';
import { CATASTROPHIC_INPUT, CATASTROPHIC_PATTERN, nestedAnyOf } from '../../test/support/hostile-schemas';
import { machine, writeResult } from '../support/infra';
import type { Scenario } from '../support/scenario';
import { table } from '../support/table';

/** A 15 KB schema of 150 objects, each with a pattern, a bound and an enum: the largest ordinary kind the 16 KB limit admits. */
function largeSchema(): { schema: object; params: Record<string, unknown> } {
  const properties: Record<string, object> = {};
  const params: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify(properties).length < 14_800; i++) {
    properties[`field${i}`] = { type: 'object', required: ['a'], properties: { a: { type: 'string', maxLength: 20, pattern: '^[a-z]+$' }, b: { type: 'integer', minimum: 0 }, c: { enum: ['x', 'y', 'z'] } } };
    params[`field${i}`] = { a: 'abc', b: i, c: 'y' };
  }
  return { schema: { type: 'object', properties }, params };
}

interface Case {
  name: string;
  schema: object;
  params: unknown;
  /** Samples of the unbounded check: each takes up to seconds. */
  beforeSamples: number;
}

const RESIZE = { type: 'object', required: ['width'], additionalProperties: false, properties: { width: { type: 'integer', minimum: 1 }, format: { enum: ['png', 'jpeg'] }, tags: { type: 'array', items: { type: 'string' } } } };

/**
 * The params check (issue 20 item 3) before and after: each case checked `samples` times with its
 * schema compiled once beforehand, as the console caches it. Before: Ajv on the event loop as the
 * console ran it (allErrors, V8's RegExp, every error). After: ParamsCheckWorkers (worker threads,
 * RE2 patterns, 50 ms deadline, errors bounded), the round trip as a save waits for it. Per case:
 * p50/p99 of a check, the longest the event loop was held (perf_hooks' delay histogram, 10 ms
 * resolution), the size of the errors as the API would answer them, and how many checks were
 * refused as too costly (for an ordinary schema: the machine too busy to meet the deadline). Last, the ordinary check
 * again while another tenant's hostile checks run without pause alongside (after only: before,
 * each hostile check held the event loop, and the ordinary one with it).
 */
export const paramsCheck: Scenario = {
  name: 'params-check',
  description: 'params check against normal and hostile handler schemas: p50/p99, event-loop block, error size; before (event loop) vs after (bounded worker)',
  standalone: true,
  async run({ log }) {
    const large = largeSchema();
    const cases: Case[] = [
      { name: 'resize (3 params)', schema: RESIZE, params: { width: 640, format: 'png', tags: ['a', 'b'] }, beforeSamples: 200 },
      { name: 'large 15 KB, 150 objects', schema: large.schema, params: large.params, beforeSamples: 200 },
      { name: `pattern ${CATASTROPHIC_PATTERN}, 28 a's + "!"`, schema: { type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC_PATTERN } } }, params: { s: CATASTROPHIC_INPUT }, beforeSamples: 3 },
      { name: 'nested anyOf/$ref, 16 levels', schema: nestedAnyOf(16), params: { s: {} }, beforeSamples: 5 },
      { name: 'nested anyOf/$ref, 18 levels', schema: nestedAnyOf(18), params: { s: {} }, beforeSamples: 3 },
    ];
    const samples = 200;
    const workers = new ParamsCheckWorkers();
    const rows: Array<Array<string | number>> = [];
    const results: unknown[] = [];
    try {
      for (const c of cases) {
        const text = JSON.stringify(c.schema);
        // After first: the garbage of the unbounded check (up to 75 MB of errors) would be collected during it.
        await workers.run([{ schema: text }], c.name);
        let refused = 0;
        const after = await measure(samples, () => async () => {
          const [verdict] = await workers.run([{ schema: text, params: c.params }], c.name);
          if ('refused' in verdict) refused++;
          return JSON.stringify(verdict).length;
        });
        const before = await measure(c.beforeSamples, () => {
          const validate = new Ajv({ allErrors: true, strict: false, logger: false }).compile(c.schema);
          return () => (validate(c.params) ? 0 : JSON.stringify(validate.errors).length);
        });
        log(`params-check: ${c.name}: before p99 ${before.p99.toFixed(2)} ms, after p99 ${after.p99.toFixed(2)} ms, ${refused} of ${samples} refused`);
        rows.push([c.name, fmt(before.p50), fmt(before.p99), fmt(before.blockedMs), kb(before.bytes), fmt(after.p50), fmt(after.p99), fmt(after.blockedMs), kb(after.bytes), refused]);
        results.push({ case: c.name, schemaBytes: text.length, before, after: { ...after, refused } });
      }
      const resize = JSON.stringify(RESIZE);
      let hostileChecks = 0;
      let noisy = true;
      const noise = (async () => {
        // A new variant each time, as a tenant rotating its schemas would send: a schema checked
        // again is flagged unusable after two overruns and costs nothing, a new one an overrun
        // (in the worker of the suspects: the tenant's checks were refused before).
        while (noisy) hostileChecks += (await workers.run([{ schema: JSON.stringify({ ...nestedAnyOf(18), $comment: `variant ${hostileChecks}` }), params: { s: {} } }], 'hostile tenant')).length;
      })();
      // 10× the samples: long enough for a few dozen hostile checks, each a worker restart.
      let refused = 0;
      const alongside = await measure(samples * 10, () => async () => {
        const [verdict] = await workers.run([{ schema: resize, params: { width: 0 } }], 'another tenant');
        if ('refused' in verdict) refused++;
        return JSON.stringify(verdict).length;
      });
      noisy = false;
      await noise;
      const name = `resize, ${hostileChecks} hostile checks alongside`;
      log(`params-check: ${name}: p99 ${alongside.p99.toFixed(2)} ms`);
      rows.push([name, '', '', '', '', fmt(alongside.p50), fmt(alongside.p99), fmt(alongside.blockedMs), kb(alongside.bytes), refused]);
      results.push({ case: name, after: { ...alongside, refused } });
    } finally {
      await workers.close();
    }
    console.log(`\nParams check, ${samples} samples after (fewer before where one takes seconds); ms, errors in KB\n${table(['case', 'before p50', 'p99', 'loop held', 'errors', 'after p50', 'p99', 'loop held', 'errors', 'refused'], rows)}`);
    writeResult('params-check.json', { machine: machine(), samples, results });
    return rows.map((r): [string, string] => [`params-check ${r[0]}`, `p99 ${r[2] || '-'} → ${r[6]} ms, event loop held ${r[3] || '-'} → ${r[7]} ms, errors ${r[4] || '-'} → ${r[8]} KB, ${r[9]} refused`]);
  },
};

/** `samples` calls of the check `prepare` returns (prepared untimed): p50/p99, the event loop's longest delay, the answer's size. */
async function measure(samples: number, prepare: () => () => number | Promise<number>): Promise<{ p50: number; p99: number; blockedMs: number; bytes: number }> {
  const check = prepare();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < samples; i++) {
    const since = performance.now();
    bytes = await check();
    times.push(performance.now() - since);
    // Let the histogram's timer see each check on its own.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  histogram.disable();
  return { p50: percentile(times, 50), p99: percentile(times, 99), blockedMs: histogram.max / 1e6, bytes };
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const kb = (bytes: number) => (bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0);
