import { runHaKills, type HaKill } from '../support/ha/ha-kills';
import { runReplicaKill } from '../support/ha/replica-kill';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * High availability (issue 25): the three kills of bench/support/ha/ha-kills.ts on a three-node
 * Galera cluster behind HAProxy, two ActiveMQ brokers in a network and two consoles behind
 * HAProxy — the Galera writer killed mid-burst (`--burst=`, default 4,000 runs), a broker killed
 * while alarms flow (`--alarm-rate=`, default 20/s), the console a Chromium page is on killed.
 * `--db=replica`: instead, the other database topology (bench/support/ha/replica-kill.ts): the
 * primary of a primary + replica pair killed 0.5 s into the burst, the replica promoted by the
 * bench as an operator would, `--promote-after=` ms later (default 1000; `never`: no promotion),
 * `--semi-sync=off` for asynchronous replication.
 * Not in the quick set (it starts its own servers on ports 18300-18499, 18920-18959): `npm run bench -- ha`.
 */
export const ha: Scenario = {
  name: 'ha',
  description: 'kill -9 of the Galera writer mid-burst, of an ActiveMQ broker and of a console (--db=replica: of the primary, then promotion of the replica): lost, duplicated, pause, recovery',
  options: '--burst=4000 --alarm-rate=20 --browser=no --tag=… ; --db=replica [--promote-after=1000|never] [--semi-sync=off]',
  quickSet: false,
  async run({ args, log }) {
    const burst = Number(option(args, 'burst') ?? 4_000);
    const alarmRate = Number(option(args, 'alarm-rate') ?? 20);
    const replica = option(args, 'db') === 'replica';
    const promoteAfter = option(args, 'promote-after') ?? '1000';
    const results: HaKill[] = replica
      ? [
          await runReplicaKill(
            { burst, killAt: { afterDueMs: 500 }, promoteAfterMs: promoteAfter === 'never' ? null : Number(promoteAfter), semiSync: option(args, 'semi-sync') !== 'off', stallMs: 30_000 },
            log,
          ),
        ]
      : await runHaKills({ burst, alarmRate, browser: option(args, 'browser') !== 'no' }, log);
    const rows = results.map((r) => [r.fault, r.count, r.lost, r.duplicated, r.pauseMs, r.recoveryMs, JSON.stringify(r.figures)]);
    console.log(`\nHigh availability — what each kill costs (target: 0 lost, 0 duplicated)\n${table(['kill', 'n', 'lost', 'dup', 'pause ms', 'recovery ms', 'figures'], rows)}\n`);
    writeResult(`ha${replica ? '-replica' : ''}${option(args, 'tag') ?? ''}.json`, { benchmark: 'ha', machine: machine(), burst, ...(replica ? { db: 'replica' } : { alarmRate }), results });
    return results.map((r): [string, string] => [`ha: ${r.fault}`, `lost ${r.lost}, dup ${r.duplicated}, pause ${r.pauseMs} ms, recovery ${r.recoveryMs} ms`]);
  },
};
