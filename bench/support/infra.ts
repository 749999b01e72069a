import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../test/cluster/support/processes';
import { acquireSuiteLock } from '../../test/cluster/support/suite-lock';

/**
 * What a benchmark needs around it: the private MariaDB (scripts/mariadb.sh, leased by this
 * process so a test run sharing it never stops it under us, and released — stopping it only if
 * it was auto-started and nobody else holds a lease), the machine-wide cluster-suite lock (a
 * cluster test running meanwhile would measure us and we it), and result files.
 */

export const RESULTS_DIR = join(ROOT, 'bench/results');
const MARIADB = join(ROOT, 'scripts/mariadb.sh');

export interface Infra {
  mysqlUrl: string;
  mariadbPid: number | null;
  release(): void;
}

export async function acquireInfra(log: (line: string) => void): Promise<Infra> {
  let mysqlUrl = process.env.BATON_TEST_MYSQL_URL ?? '';
  let leased = false;
  if (!mysqlUrl) {
    log('MariaDB: scripts/mariadb.sh start --lease (starts the private server on port 3407 if it is not running)');
    mysqlUrl = execFileSync('bash', [MARIADB, 'start', '--lease', String(process.pid)], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
    leased = true;
    process.env.BATON_TEST_MYSQL_URL = mysqlUrl;
  }
  log(`MariaDB: ${mysqlUrl.replace(/:[^:@/]*@/, ':***@')}`);
  log('waiting for the cluster-suite lock (no cluster test may run while we measure)…');
  const unlock = await acquireSuiteLock(900_000);
  let released = false;
  return {
    mysqlUrl,
    mariadbPid: mariadbPid(),
    release() {
      if (released) return;
      released = true;
      unlock();
      if (leased) {
        try {
          execFileSync('bash', [MARIADB, 'release', String(process.pid)], { cwd: ROOT, stdio: 'ignore' });
        } catch {
          // best effort: the script drops dead leases itself
        }
      }
    },
  };
}

function mariadbPid(): number | null {
  // A server this checkout's script did not start (another worktree's, shared): name it by hand.
  if (process.env.BENCH_MARIADB_PID) return Number(process.env.BENCH_MARIADB_PID);
  try {
    const out = execFileSync('bash', [MARIADB, 'status'], { cwd: ROOT, encoding: 'utf8' });
    const m = /pid (\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN when gone. */
export function cpuSeconds(pid: number | null): number {
  const fields = pid ? statFields(pid) : null;
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : NaN; // utime, stime in clock ticks (USER_HZ = 100)
}

/**
 * CPU seconds used so far by a process and all its descendants: its own time, its reaped
 * children's (cutime, cstime: a PostgreSQL backend that ended) and its live descendants'. NaN when
 * the process is gone.
 */
export function treeCpuSeconds(pid: number | null): number {
  const tree = processTree(pid);
  if (!tree) return NaN;
  let ticks = 0;
  for (const p of tree) {
    const fields = statFields(p);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]); // utime stime cutime cstime
  }
  return ticks / 100;
}

/**
 * How many times a process and its live descendants went to sleep so far (every thread's
 * `voluntary_ctxt_switches`): each is a wake-up to come, what a message costs most on a VM
 * (docs/BENCHMARKS.md, the machine). NaN when the process is gone.
 */
export function treeSleeps(pid: number | null): number {
  const tree = processTree(pid);
  if (!tree) return NaN;
  let sleeps = 0;
  for (const p of tree) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const thread of threads) {
      try {
        const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${p}/task/${thread}/status`, 'utf8'));
        if (m) sleeps += Number(m[1]);
      } catch {
        // The thread ended meanwhile.
      }
    }
  }
  return sleeps;
}

/** A process and its live descendants, or null when it is gone. */
function processTree(pid: number | null): number[] | null {
  if (!pid) return null;
  const children = new Map<number, number[]>();
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields) continue;
    const ppid = Number(fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    if (Number(entry) === pid) found = true;
  }
  if (!found) return null;
  const tree: number[] = [];
  for (const queue = [pid]; queue.length; ) {
    const p = queue.pop()!;
    tree.push(p);
    queue.push(...(children.get(p) ?? []));
  }
  return tree;
}

/** /proc/<pid>/stat's fields after the command name (state first), or null when gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time of the whole machine so far (all cores, other users included), from /proc/stat, in clock ticks. */
export function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - (fields[4] ?? 0), total }; // idle and iowait are not busy
}

/** Resident set size of a process in MB, from /proc; NaN when gone. */
export function rssMb(pid: number | null): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, name);
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2) + '\n');
  return file;
}

export function machine(): Record<string, unknown> {
  return { node: process.version, cpu: cpus()[0]?.model, cpus: cpus().length, memGb: Math.round(totalmem() / 2 ** 30), date: new Date().toISOString() };
}

/** The MariaDB server's pid, from its own pid file (@@pid_file), or null when that is not readable here. */
export async function mariadbServerPid(ds: { query(sql: string): Promise<unknown> }): Promise<number | null> {
  const rows = (await ds.query('SELECT @@pid_file AS f')) as Array<{ f: string }>;
  try {
    return Number(readFileSync(rows[0].f, 'utf8').trim()) || null;
  } catch {
    return null;
  }
}
