/**
 * The console API fuzzer: walks the OpenAPI document the console serves and, for every route,
 * sends fast-check-generated requests — valid and with one defect each (see arbitraries.ts) — as
 * every role: the operator, alpha's TENANT_ADMIN and TENANT_VIEWER (sessions), an admin and a
 * viewer API key, and no credentials. Seeded (BATON_FUZZ_SEED, printed) and bounded in time
 * (BATON_FUZZ_MS per database, split evenly over the routes). Every answer must hold:
 *
 * 1. no 5xx;
 * 2. every 4xx is an ErrorBody (`statusCode` = the status, a known `code`, `error`, a non-empty
 *    `message`, no stack trace) and every 400 names at least one field with a reason — a 400
 *    says the input is wrong, so it says where;
 * 3. a request whose one defect the fuzzer placed, once past authentication and roles (not
 *    401/403/429): a bad path id or query value (wrong type, non-canonical integer, given twice,
 *    unknown) is a 400 naming that parameter; a bad body field is refused (4xx), a 400 naming
 *    that field (or the object holding it, or a field within); a body that is not a JSON object
 *    is a 400/413 naming `body`. A defect left unnamed counts only if the same request without
 *    it is not a 400 too: a request wrong elsewhere as well may be refused for the other error
 *    first (the console checks the shape, then the domain rules);
 * 4. a refused write (non-GET answered 4xx) changes no row of any table (a digest of every
 *    table before and after);
 * 5. an answer to one of alpha's principals shows nothing of tenant bravo (its tenant id, its
 *    objects' ids, its names), and bravo's rows are as seeded at the end.
 *
 * Routes that would end the fuzzer's own session are sent without it: logout only as an API
 * key or anonymously (logging out of a session is covered by the auth tests), a password change only
 * with a wrong current password, and the pools never hold the fuzzer's own users and keys
 * (world.ts). Deletes run last, so the routes before them find the seeded objects.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { ERROR_CODES } from '@baton/protocol';
import { TEST_DATABASES, useTestDatabase } from '../../support/databases';
import { startConsole, T0, type ConsoleTestApp } from '../console-test-kit';
import { FUZZ_NOW, poolOfPathParam, requestsFor, type Defect, type RequestPlan } from './arbitraries';
import { operationsOf, routeKey, type Document, type Operation } from './openapi';
import { BYSTANDER, bystanderTraces, changedTables, FAILED_LOGIN_ROUTES, FAILED_LOGIN_TABLES, harvest, resolveRefs, rowDigests, seedWorld, TENANT, type World } from './world';

/** The seed of the whole run; route i runs with seed + i. */
const SEED = Number(process.env.BATON_FUZZ_SEED ?? 2121);
/** Time spent sending requests, per database (setup not counted). */
const BUDGET_MS = Number(process.env.BATON_FUZZ_MS ?? 30_000);

const TENANT_ROLES = new Set(['admin', 'viewer', 'adminKey', 'viewerKey']);

/** Routes that end the session they are sent with: sent only with credentials that are not sessions. */
const SESSION_ENDING = new Set(['POST /api/auth/logout']);

interface Finding {
  route: string;
  role: string;
  request: string;
  status: number;
  problem: string;
  answer: string;
}

interface Stats {
  requests: number;
  byStatus: Map<number, number>;
  defects: number;
  /** Defects left unnamed because the same request without them was refused too (an earlier error masked them). */
  masked: number;
  /** Time spent on row digests (rule 4). */
  digestMs: number;
  /** Routes that answered a 2xx at least once: the generators got past validation there. */
  accepted: Set<string>;
}

describe.each(TEST_DATABASES)('console API fuzzer on %s', (kind) => {
  const db = useTestDatabase(kind);
  let t: ConsoleTestApp;
  let world: World;
  let baseUrl: string;
  let operations: Operation[];

  beforeAll(async () => {
    expect(FUZZ_NOW).toBe(T0);
    t = await startConsole(db.dataSource);
    world = await seedWorld(t, db.dataSource);
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const doc = (await (await fetch(`${baseUrl}/api/docs-json`)).json()) as Document;
    // Deletes last, so the routes before them find the seeded objects still there.
    const all = operationsOf(doc);
    operations = [...all.filter((op) => op.method !== 'DELETE'), ...all.filter((op) => op.method === 'DELETE')];
  });

  afterAll(() => t?.close());

  /** The URL, headers and body text of a plan, its Refs resolved. */
  function materialise(plan: RequestPlan) {
    const path = plan.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(resolveRefs(world, plan.role, plan.pathValues[name]))));
    const query = plan.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(resolveRefs(world, plan.role, v)))}`).join('&');
    const url = query ? `${path}?${query}` : path;
    const body = plan.raw ?? (plan.body !== undefined ? JSON.stringify(resolveRefs(world, plan.role, plan.body)) : undefined);
    return { url, body, headers: { ...world.creds[plan.role], ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } };
  }

  /** What is wrong with an answer by rules 1 and 2 (`general`) and rule 3 (`defect`). */
  function problemsOf(plan: RequestPlan, status: number, answer: unknown): { general: string[]; defect: string[] } {
    const problems: string[] = [];
    if (status >= 500) return { general: [`${status}: a server error`], defect: [] };
    const body = answer as { statusCode?: unknown; code?: unknown; error?: unknown; message?: unknown; errors?: Array<{ field?: unknown; reason?: unknown }> } | null;
    if (status >= 400) {
      if (!body || typeof body !== 'object') return { general: [`${status} without an ErrorBody`], defect: [] };
      if (body.statusCode !== status) problems.push(`statusCode ${String(body.statusCode)} ≠ ${status}`);
      if (!(ERROR_CODES as readonly unknown[]).includes(body.code)) problems.push(`unknown code ${String(body.code)}`);
      if (typeof body.error !== 'string' || typeof body.message !== 'string' || body.message === '') problems.push('no error/message');
      if (/\bat .*\.[jt]s:\d+/.test(JSON.stringify(body))) problems.push('a stack trace in the answer');
      if (body.errors !== undefined && (!Array.isArray(body.errors) || body.errors.some((e) => typeof e.field !== 'string' || !e.field || typeof e.reason !== 'string' || !e.reason))) {
        problems.push('errors[] not all { field, reason }');
      }
      if (status === 400 && !(Array.isArray(body.errors) && body.errors.length > 0)) problems.push('a 400 naming no field');
    }
    const fields = Array.isArray(body?.errors) ? body.errors.map((e) => String(e.field)) : [];
    const d = plan.defect;
    return { general: problems, defect: d && ![401, 403, 429].includes(status) ? defectProblems(d, status, fields, answer) : [] };
  }

  /** The fields a batch answer's refused items name (`results[i].error.errors[].field`, status 400). */
  function itemFields(answer: unknown): string[] {
    const results = (answer as { results?: Array<{ status?: number; error?: { errors?: Array<{ field?: unknown }> } }> } | null)?.results;
    return Array.isArray(results) ? results.filter((r) => r.status === 400).flatMap((r) => (r.error?.errors ?? []).map((e) => String(e.field))) : [];
  }

  function defectProblems(d: Defect, status: number, fields: string[], answer: unknown): string[] {
    switch (d.in) {
      case 'path':
      case 'query':
        return status === 400 && fields.includes(d.name) ? [] : [`${d.in} parameter ${d.name}=${JSON.stringify(d.value)} not refused as a 400 naming ${d.name}`];
      case 'raw':
        return (status === 400 || status === 413) && fields.includes('body') ? [] : [`a body that is ${d.kind} not refused as a 400 naming body`];
      case 'body': {
        const norm = (f: string) => f.replace(/\[\d+\]/g, '[]');
        const related = (f: string) => f === d.field || f.startsWith(`${d.field}.`) || f.startsWith(`${d.field}[`) || d.field.startsWith(`${f}.`) || d.field.startsWith(`${f}[`);
        // A batch answers each item on its own (POST /api/events' `events`): a bad item is its own 400 in `results`, naming the field.
        if (status < 400) return itemFields(answer).map(norm).some(related) ? [] : [`body field ${d.field} (${d.kind}) accepted`];
        return status !== 400 || fields.map(norm).some(related) ? [] : [`body field ${d.field} (${d.kind}) refused without naming it (named: ${fields.join(', ')})`];
      }
    }
  }

  it(`sends generated requests to every route as every role for ${BUDGET_MS} ms: no 5xx, named 4xx, no row changed by a refused write, nothing of another tenant`, async () => {
    const ds = db.dataSource;
    const findings: Finding[] = [];
    const stats: Stats = { requests: 0, byStatus: new Map(), defects: 0, masked: 0, digestMs: 0, accepted: new Set() };
    const bystanderBefore = await bystanderRows(ds);
    const sliceMs = Math.max(50, Math.floor(BUDGET_MS / operations.length));
    const started = Date.now();
    console.log(`[fuzz ${kind}] seed=${SEED} (BATON_FUZZ_SEED) budget=${BUDGET_MS} ms (BATON_FUZZ_MS) routes=${operations.length} slice=${sliceMs} ms`);

    const digest = async () => {
      const t0 = Date.now();
      const d = await rowDigests(ds);
      stats.digestMs += Date.now() - t0;
      return d;
    };

    async function send(op: Operation, plan: RequestPlan): Promise<number> {
      const { url, body, headers } = materialise(plan);
      const write = op.method !== 'GET';
      const before = write ? await digest() : null;
      const res = await fetch(`${baseUrl}${url}`, { method: op.method, headers, body });
      const text = await res.text();
      let answer: unknown = null;
      try {
        answer = text ? JSON.parse(text) : null;
      } catch {
        answer = text;
      }
      stats.requests++;
      stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
      if (plan.defect) stats.defects++;
      const { general, defect } = problemsOf(plan, res.status, answer);
      const problems = [...general];
      if (before && res.status >= 400) {
        const changed = changedTables(before, await digest()).filter((table) => !(res.status === 401 && FAILED_LOGIN_ROUTES.has(op.path) && FAILED_LOGIN_TABLES.test(table)));
        if (changed.length) problems.push(`refused (${res.status}) yet changed rows of ${changed.join(', ')}`);
      }
      if (defect.length) {
        // A defect in a request already wrong elsewhere may be masked by the first error found: the same request without it tells.
        if (res.status === 400 && plan.baseline && (await send(op, plan.baseline)) === 400) stats.masked++;
        else problems.push(...defect);
      }
      if (TENANT_ROLES.has(plan.role)) {
        const traces = bystanderTraces(world, poolOfPathParam(`${op.path}/{id}`, 'id'), `${url} ${body ?? ''}`, answer);
        if (traces.length) problems.push(`shows ${BYSTANDER}'s data to ${TENANT}: ${traces.slice(0, 5).join('; ')}`);
      }
      if (res.status >= 200 && res.status < 300) {
        stats.accepted.add(routeKey(op));
        if (op.method === 'POST') harvest(world, plan.role, op.path, answer);
      }
      if (problems.length) {
        const finding = {
          route: routeKey(op),
          role: plan.role,
          request: `${op.method} ${url}${body !== undefined ? ` ${body.slice(0, 400)}` : ''}${plan.defect ? ` [defect: ${JSON.stringify(plan.defect)}]` : ''}`,
          status: res.status,
          problem: problems.join(' | '),
          answer: text.slice(0, 400),
        };
        findings.push(finding);
        throw new Error(`${finding.problem}: ${finding.request} → ${finding.status} ${finding.answer}`);
      }
      return res.status;
    }

    for (const [i, op] of operations.entries()) {
      let inFlight: Promise<void> = Promise.resolve();
      const usable = (plan: RequestPlan) => !(SESSION_ENDING.has(routeKey(op)) && (plan.role === 'operator' || plan.role === 'admin' || plan.role === 'viewer'));
      const details = await fc.check(
        fc.asyncProperty(requestsFor(op).filter(usable), async (plan) => {
          inFlight = send(op, plan).then(() => undefined);
          await inFlight;
        }),
        { seed: SEED + i, numRuns: 1_000_000, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(sliceMs)] },
      );
      // The time limit races the request under way: let it end before the next route's digests.
      await inFlight.catch(() => undefined);
      if (details.failed && details.counterexample) {
        findings[findings.length - 1].problem += ` (replay: BATON_FUZZ_SEED=${SEED}, route seed ${details.seed}, path ${details.counterexamplePath})`;
      }
    }

    const elapsed = Date.now() - started;
    const statuses = [...stats.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`[fuzz ${kind}] ${stats.requests} requests (${stats.defects} with a placed defect, ${stats.masked} of them masked by another error) in ${elapsed} ms, ${Math.round((stats.requests * 1000) / elapsed)}/s (row digests ${stats.digestMs} ms); statuses ${statuses}; findings ${findings.length}`);
    const neverAccepted = operations.map(routeKey).filter((r) => !stats.accepted.has(r));
    console.log(`[fuzz ${kind}] routes never answered 2xx (${neverAccepted.length}): ${neverAccepted.join(', ') || 'none'}`);
    for (const f of findings) console.log(`[fuzz ${kind}] FINDING ${f.route} as ${f.role}: ${f.problem}\n    ${f.request}\n    → ${f.status} ${f.answer}`);

    expect(stats.requests).toBeGreaterThan(operations.length * 5);
    expect(findings.map((f) => `${f.route} as ${f.role}: ${f.problem}`)).toEqual([]);
    expect(await bystanderRows(ds)).toEqual(bystanderBefore);
  }, BUDGET_MS + 120_000);
});

/** Tenant bravo's rows, which nothing the fuzzer sends may change. */
async function bystanderRows(ds: import('typeorm').DataSource): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ['tenants', 'tasks', 'task_dependencies', 'calendars', 'runs', 'alarms', 'executors', 'api_keys', 'users', 'webhook_channels', 'retention_policies']) {
    const column = table === 'tenants' ? 'id' : 'tenant_id';
    out[table] = await ds.query(`SELECT * FROM ${ds.driver.escape(table)} WHERE ${ds.driver.escape(column)} = ? ORDER BY 1`, [BYSTANDER]);
  }
  return out;
}


