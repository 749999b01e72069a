import { runHaKills } from '../support/ha/ha-kills';
import { machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * High availability (issue 25): the three kills of bench/support/ha/ha-kills.ts on a three-node
 * Galera cluster behind HAProxy, two ActiveMQ brokers in a network and two consoles behind
 * HAProxy — the Galera writer killed mid-burst (`--burst=`, default 4,000 runs), a broker killed
 * while alarms flow (`--alarm-rate=`, default 20/s), the console a Chromium page is on killed.
 * Not in the quick set (it starts its own servers on ports 18300-18499): `npm run bench -- ha`.
 */
export const ha: Scenario = {
  name: 'ha',
  description: 'kill -9 of the Galera writer mid-burst, of an ActiveMQ broker and of a console: lost, duplicated, pause, recovery',
  quickSet: false,
  async run({ args, log }) {
    const burst = Number(option(args, 'burst') ?? 4_000);
    const alarmRate = Number(option(args, 'alarm-rate') ?? 20);
    const results = await runHaKills({ burst, alarmRate, browser: option(args, 'browser') !== 'no' }, log);
    const rows = results.map((r) => [r.fault, r.count, r.lost, r.duplicated, r.pauseMs, r.recoveryMs, JSON.stringify(r.figures)]);
    console.log(`\nHigh availability — what each kill costs (target: 0 lost, 0 duplicated)\n${table(['kill', 'n', 'lost', 'dup', 'pause ms', 'recovery ms', 'figures'], rows)}\n`);
    writeResult(`ha${option(args, 'tag') ?? ''}.json`, { benchmark: 'ha', machine: machine(), burst, alarmRate, results });
    return results.map((r): [string, string] => [`ha: ${r.fault}`, `lost ${r.lost}, dup ${r.duplicated}, pause ${r.pauseMs} ms, recovery ${r.recoveryMs} ms`]);
  },
};
