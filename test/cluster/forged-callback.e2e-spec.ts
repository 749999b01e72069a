import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AlarmEntity, RunEntity, RunLogEntity } from '@baton/persistence';
import { PATHS, sign } from '@baton/protocol';
import { useCluster, waitFor } from './support/cluster';
import { freePort, postRaw, RecordingProxy } from './support/engine-http';
import { printFigures } from './support/figures';
import { insertTask, seedTenant } from './support/seed';

/**
 * Issue #3, "Done when" — a forged or replayed callback against a running engine process is
 * refused and changes nothing. The engine's callback URL (BATON_ENGINE_URL) is a recording
 * proxy in the test process, so the executor's real, validly signed final callback is captured
 * byte for byte. Then:
 * - while the run is ACCEPTED: an outcome callback signed with a wrong secret → 401; one signed
 *   with another tenant's valid secret → 401; the run row is unchanged;
 * - once the real callback ended the run: the captured callback replayed to the same engine →
 *   401 (replay), and to a second engine process → 401 or 409 (its replay guard is per node;
 *   the guarded transition refuses it); the run row is unchanged either way;
 * - interim callbacks (progress; a business alarm) of runs in flight, replayed: 401 from the
 *   engine that took them; what a second engine does with them is printed (it takes them: the
 *   replay guard is per node), the state never moves and the business alarm stays one row.
 */
/** The headers a replay repeats: the signature headers and the content type, as captured. */
function signedHeadersOf(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([k]) => k.startsWith('x-baton-') || k === 'content-type')
      .map(([k, v]) => [k, String(v)]),
  );
}

describe('cluster: forged and replayed callbacks against running engine processes', () => {
  const ctx = useCluster('forged');

  it('refuses them with 401 (or 409 for a replay already applied), and the run row does not change', async () => {
    const c = ctx.cluster;
    const other = await seedTenant(c.ds, { id: 'other', engineGroup: 'g-other' });
    const port = await freePort();
    const proxy = await RecordingProxy.start({ host: '127.0.0.1', port });
    try {
      const [engine] = await c.startEngines(1, { BATON_ENGINE_PORT: String(port), BATON_ENGINE_URL: proxy.url });
      expect(engine.url).toBe(proxy.url);
      const engineDirect = `http://127.0.0.1:${port}`;
      const [second] = await c.startEngines(1, { BATON_ENGINE_GROUPS: 'g-other' }); // serves another group; still an engine executors may call
      await c.startExecutors(1, { BATON_ENGINE_URLS: proxy.url });

      const at = Math.ceil((Date.now() + 2_500) / 1000) * 1000;
      const task = await insertTask(c.ds, c.tenant, { name: 'target', trigger: { kind: 'ONCE', at }, handler: 'sleep', params: { ms: 3_000 } });
      const row = async () => (await c.ds.getRepository(RunEntity).findOneByOrFail({ taskId: task })) as RunEntity;
      const counts = async () => ({
        alarms: await c.ds.getRepository(AlarmEntity).countBy({ tenantId: c.tenant.id }),
        logs: await c.ds.getRepository(RunLogEntity).countBy({ tenantId: c.tenant.id }),
      });
      const running = await waitFor(
        async () => {
          const r = await c.runs([task]);
          return r.length === 1 && r[0].state === 'ACCEPTED' ? r[0] : false;
        },
        { timeoutMs: 20_000, what: 'the target run ACCEPTED' },
      );

      // Forged outcome callbacks while the run is in flight.
      const forgedBody = JSON.stringify({ runId: running.id, attempt: running.attempt, tenantId: c.tenant.id, outcome: 'SUCCEEDED', result: { forged: true }, startedAt: Date.now(), finishedAt: Date.now() });
      const countsBefore = await counts();
      const wrongSecret = await postRaw(`${engineDirect}${PATHS.callback}`, { ...sign('not-the-secret', c.tenant.id, 'POST', PATHS.callback, forgedBody, Date.now()) }, forgedBody);
      const otherTenant = await postRaw(`${engineDirect}${PATHS.callback}`, { ...sign(other.executorSecret, other.id, 'POST', PATHS.callback, forgedBody, Date.now()) }, forgedBody);
      const afterForged = await row();
      expect(afterForged).toEqual(running);
      expect(await counts()).toEqual(countsBefore);

      // The real callback, captured by the proxy, ends the run.
      const captured = await waitFor(
        () => proxy.requests.find((r) => r.path === PATHS.callback && r.status === 200 && (JSON.parse(r.body.toString('utf8')) as { runId: number; outcome?: string }).runId === running.id && JSON.parse(r.body.toString('utf8')).outcome),
        { timeoutMs: 15_000, what: 'the executor’s final callback through the proxy' },
      );
      const ended = await row();
      expect(ended.state).toBe('SUCCEEDED');
      const countsEnded = await counts();

      // Replays of the captured callback, byte for byte, same headers.
      const headers = signedHeadersOf(captured.headers);
      const replaySameNode = await postRaw(`${engineDirect}${PATHS.callback}`, headers, captured.body);
      const replayViaProxy = await postRaw(`${proxy.url}${PATHS.callback}`, headers, captured.body);
      const replayOtherNode = await postRaw(`${second.url}${PATHS.callback}`, headers, captured.body);
      const afterReplays = await row();
      const countsAfter = await counts();

      printFigures('forged / replayed callbacks', {
        'run while in flight': `${running.id} ${running.state}`,
        'forged (wrong secret) → ': `${wrongSecret.status} ${JSON.stringify(wrongSecret.body)}`,
        'forged (another tenant’s valid secret) → ': `${otherTenant.status} ${JSON.stringify(otherTenant.body)}`,
        'real callback (captured by the proxy) → ': `${captured.status} ${captured.answer}`,
        'replay, same engine → ': `${replaySameNode.status} ${JSON.stringify(replaySameNode.body)}`,
        'replay, same engine via its public URL → ': `${replayViaProxy.status} ${JSON.stringify(replayViaProxy.body)}`,
        'replay, another engine process → ': `${replayOtherNode.status} ${JSON.stringify(replayOtherNode.body)}`,
        'alarms / log lines: before forged, after the real callback, after the replays': `${JSON.stringify(countsBefore)}, ${JSON.stringify(countsEnded)}, ${JSON.stringify(countsAfter)}`,
      });

      expect(wrongSecret.status).toBe(401);
      expect(otherTenant.status).toBe(401);
      expect(replaySameNode.status).toBe(401);
      expect(replaySameNode.body).toMatchObject({ statusCode: 401, code: 'BAD_SIGNATURE', reason: 'REPLAYED' });
      expect(replayViaProxy.status).toBe(401);
      expect([401, 409]).toContain(replayOtherNode.status);
      expect(afterReplays).toEqual(ended);
      expect(countsAfter).toEqual(countsEnded);
      expect(JSON.stringify(afterReplays.result)).not.toContain('forged');

      // Interim callbacks of runs still in flight (progress; a business alarm), replayed: refused by
      // the node that took them; another node's answer and what it does are printed.
      const at2 = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      const progressing = await insertTask(c.ds, c.tenant, { name: 'progressing', trigger: { kind: 'ONCE', at: at2 }, handler: 'long-running', params: { ms: 6_000 } });
      const alarming = await insertTask(c.ds, c.tenant, { name: 'alarming', trigger: { kind: 'ONCE', at: at2 }, handler: 'alarm', params: { message: 'business alarm, once', ms: 6_000 } });
      const interimsOf = (runId: number, withAlarms = false) =>
        proxy.requests.filter((r) => {
          if (r.path !== PATHS.callback || r.status !== 200) return false;
          const cb = JSON.parse(r.body.toString('utf8')) as { runId: number; outcome?: string; alarms?: unknown[] };
          return cb.runId === runId && !cb.outcome && (!withAlarms || (cb.alarms?.length ?? 0) > 0);
        });
      const [runP, runA] = await waitFor(
        async () => {
          const r = await c.runs([progressing, alarming]);
          return r.length === 2 && r.every((x) => x.state === 'ACCEPTED') ? r : false;
        },
        { timeoutMs: 20_000, what: 'the progressing and alarming runs ACCEPTED' },
      );
      const [firstProgress] = await waitFor(() => (interimsOf(runP.id).length >= 2 ? interimsOf(runP.id) : false), { timeoutMs: 10_000, what: 'two progress callbacks' });
      const [alarmInterim] = await waitFor(() => (interimsOf(runA.id, true).length >= 1 ? interimsOf(runA.id, true) : false), { timeoutMs: 10_000, what: 'an interim callback with an alarm' });
      const runRow = (id: number) => c.ds.getRepository(RunEntity).findOneByOrFail({ id });
      const businessAlarms = () => c.ds.getRepository(AlarmEntity).countBy({ tenantId: c.tenant.id, type: 'BUSINESS', runId: runA.id });
      const before = { p: await runRow(runP.id), a: await runRow(runA.id), alarms: await businessAlarms() };
      const replay = (url: string, r: (typeof proxy.requests)[number]) => postRaw(`${url}${PATHS.callback}`, signedHeadersOf(r.headers), r.body);
      const progressSame = await replay(engineDirect, firstProgress);
      const progressOther = await replay(second.url, firstProgress);
      const alarmSame = await replay(engineDirect, alarmInterim);
      const alarmOther = await replay(second.url, alarmInterim);
      const after = { p: await runRow(runP.id), a: await runRow(runA.id), alarms: await businessAlarms() };
      const brief = (r: RunEntity) => `${r.state} attempt ${r.attempt} progress ${r.progress} updated_at ${r.updatedAt}`;
      printFigures('replayed interim callbacks of runs in flight', {
        'captured progress callback': firstProgress.body.toString('utf8'),
        'progress replay, same engine → ': `${progressSame.status} ${JSON.stringify(progressSame.body)}`,
        'progress replay, another engine process → ': `${progressOther.status} ${JSON.stringify(progressOther.body)}`,
        'progressing run before / after': `${brief(before.p)} / ${brief(after.p)}`,
        'captured alarm callback': alarmInterim.body.toString('utf8'),
        'alarm replay, same engine → ': `${alarmSame.status} ${JSON.stringify(alarmSame.body)}`,
        'alarm replay, another engine process → ': `${alarmOther.status} ${JSON.stringify(alarmOther.body)}`,
        'BUSINESS alarm rows of the run before / after': `${before.alarms} / ${after.alarms}`,
      });
      expect(progressSame.status).toBe(401);
      expect(alarmSame.status).toBe(401);
      for (const k of ['p', 'a'] as const) {
        expect(after[k].state).toBe(before[k].state);
        expect(after[k].attempt).toBe(before[k].attempt);
      }
      expect(before.alarms).toBe(1);
      expect(after.alarms).toBe(1); // each alarm once, however the callback carrying it is replayed
    } finally {
      await proxy.close();
    }
  }, 90_000);
});
