import { AlarmEntity } from '@baton/persistence';
import { foreignSubscribe, type ForeignSubscriber } from '../../../test/alarms/support/foreign-stomp';
import { privateBroker } from '../../../test/support/broker';
import { Cluster, sleep, waitFor } from '../../../test/cluster/support/cluster';
import { dueTimes, faultResult, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';

/**
 * ActiveMQ stopped mid-run: a private broker on its own STOMP port (scripts/activemq.sh, never
 * the shared one), 2 engines relaying alarms to it, 2 executors; a stream of `alarm` handler
 * runs, each raising one BUSINESS alarm with its own message (silence window 0: none
 * collapsed). The broker is stopped `stopAfterMs` into the stream for `outageMs`, then started.
 * A STOMP subscriber that is not Baton's (@stomp/stompjs, test/alarms/support/foreign-stomp)
 * counts the alarms by their stable id against the tenant's alarm rows: lost = a row never
 * delivered, duplicated = an id delivered twice. Its subscription is durable (ActiveMQ keeps it
 * in KahaDB across the restart and holds what is published until it reconnects): a plain topic
 * subscriber re-subscribing after the restart races the engines' relays, which may publish the
 * outbox before it is back (topics keep nothing for absent subscribers), and would count
 * alarms as lost that Baton did deliver. Recovery: broker answering again → the last alarm
 * delivered.
 */
export async function brokerOutage(options: { port: number; rate: number; spanMs: number; stopAfterMs: number; outageMs: number }, log: (s: string) => void): Promise<FaultResult> {
  const broker = await privateBroker(options.port);
  log(`  private ActiveMQ on ${broker.url}`);
  const subscribers: ForeignSubscriber[] = [];
  try {
    const c = await Cluster.open('fmq');
    let failed = true;
    try {
      await openThrottles(c);
      await c.startEngines(2, { BATON_BROKER_URL: broker.url });
      await c.startExecutors(2);
      const topic = `/topic/baton.alarms.${c.tenant.id}`;
      const durable = `bench-faults-${process.pid}-${Date.now()}`;
      subscribers.push(await foreignSubscribe(broker.url, topic, { durable }));
      const n = Math.round((options.rate * options.spanMs) / 1000);
      const from = Date.now() + 3_000;
      await seedRuns(c, { handler: 'alarm', dueAt: dueTimes(n, from, options.spanMs), params: (i) => ({ message: `fault alarm ${i}` }), alarmSilenceMs: 0 });
      await sleep(from + options.stopAfterMs - Date.now());
      // The subscriber stays connected until the broker goes: what it confirmed before stopping is delivered live.
      const stoppingAt = Date.now();
      await broker.stop();
      const downAt = Date.now();
      await sleep(downAt + options.outageMs - Date.now());
      const restartAt = Date.now();
      await broker.start();
      const upAt = Date.now();
      subscribers.push(await foreignSubscribe(broker.url, topic, { durable }));
      const resubscribedAt = Date.now();
      log(`  broker down ${upAt - downAt} ms (stop took ${downAt - stoppingAt} ms, start ${upAt - restartAt} ms); subscriber back ${resubscribedAt - upAt} ms after`);

      const waited = await waitAllEnded(c, n, { timeoutMs: options.spanMs + 60_000, stallMs: 30_000, log });
      const rows = () => c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id } });
            await waitFor(async () => (await rows()).every((a) => a.publishedAt !== null), { timeoutMs: 60_000, what: 'every alarm published' }).catch(() => log('  not every alarm was published within 60 s'));
      await sleep(2_000); // strays, repeats
      const alarms = await rows();
      const got = subscribers.flatMap((s) => s.messages.map((m) => ({ id: (JSON.parse(m.body) as { id: string }).id })));
      const times = new Map<string, number>();
      for (const g of got) times.set(g.id, (times.get(g.id) ?? 0) + 1);
      const missed = alarms.filter((a) => !times.has(a.uid ?? ''));
      const { runs, t } = await settle(c, stoppingAt, log);
      const lastDelivered = Math.max(...subscribers[1].messages.map((m) => m.receivedAt));
      const result = faultResult(
        `ActiveMQ stopped ${Math.round(options.outageMs / 1000)} s (alarms)`,
        { engines: 2, executors: 2, runsPerSec: options.rate, streamMs: options.spanMs, outageMs: options.outageMs, stompPort: options.port },
        runs,
        t,
        { recoveryMs: lastDelivered - upAt },
        {
          alarmRows: alarms.length,
          alarmsPendingAtRestart: alarms.filter((a) => a.raisedAt < upAt && (a.publishedAt === null || a.publishedAt >= upAt)).length,
          alarmsDelivered: times.size,
          alarmsLost: missed.length,
          lostAlarms: missed.slice(0, 10).map((a) => ({ uid: a.uid, runId: a.runId, raisedMs: a.raisedAt - stoppingAt, publishedMs: a.publishedAt === null ? null : a.publishedAt - stoppingAt })),
          alarmsPublishedBeforeSubscriberBack: alarms.filter((a) => a.publishedAt !== null && a.publishedAt >= upAt && a.publishedAt < resubscribedAt).length,
          alarmsDuplicated: [...times.values()].filter((v) => v > 1).length,
          alarmsUnknown: [...times.keys()].filter((id) => !alarms.some((a) => a.uid === id)).length,
          lastAlarmAfterRestartMs: lastDelivered - upAt,
          runsLost: t.lost.length,
          allEnded: waited.complete,
        },
      );
      // For this case the headline lost / duplicated are the alarms'; the runs' are in figures.
      result.lost = missed.length;
      result.duplicated = [...times.values()].filter((v) => v > 1).length;
      failed = result.lost + result.duplicated + t.lost.length > 0;
      return result;
    } finally {
      await Promise.all(subscribers.map((s) => s.close().catch(() => undefined)));
      await c.close(failed);
    }
  } finally {
    await broker.stop();
  }
}
