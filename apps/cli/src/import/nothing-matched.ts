/**
 * Why an import that matched nothing is refused: its file would hold `tasks: []`, and applying
 * that with `--prune` deletes every task of the tenant. The message names what the flags asked
 * for and what the tables hold instead, so the next command can name it.
 */

/** "a (3 jobs), b (1 job)"; "none" when empty. */
export function countedNames(counts: ReadonlyMap<string, number>, noun: string): string {
  if (counts.size === 0) return 'none';
  return [...counts].map(([name, n]) => `${name} (${n} ${noun}${n === 1 ? '' : 's'})`).join(', ');
}

/** Each value's count, in first-seen order. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export const NO_FILE = 'No file written.';

/** Quartz: the scheduler has no jobs, or --job-group named none of its groups; null when something matched. */
export function quartzNothingMatched(store: { jobs: ReadonlyArray<{ group: string }>; schedulers: ReadonlyMap<string, number> }, entries: number, scheduler: string, tablePrefix: string, jobGroups: string[] | null): string | null {
  if (entries > 0) return null;
  const table = `${tablePrefix}JOB_DETAILS`;
  if (store.jobs.length === 0 && store.schedulers.size === 0) return `${table} holds no jobs of any scheduler: check --url and --table-prefix. ${NO_FILE}`;
  if (store.jobs.length === 0) return `scheduler "${scheduler}" has no jobs in ${table}; the schedulers there: ${countedNames(store.schedulers, 'job')}. Name one with --scheduler (org.quartz.scheduler.instanceName). ${NO_FILE}`;
  const asked = (jobGroups ?? []).map((g) => `"${g}"`).join(', ');
  return `no job of job group(s) ${asked} in scheduler "${scheduler}"; its job groups: ${countedNames(countBy(store.jobs, (j) => j.group), 'job')}. Name them with --job-group. ${NO_FILE}`;
}

/** XXL-JOB: the info table has no jobs, or --app named no executor group with jobs; null when something matched. */
export function xxlJobNothingMatched(tables: { groups: ReadonlyArray<{ id: number; appName: string }>; jobs: ReadonlyArray<{ jobGroup: number }> }, entries: number, tablePrefix: string, apps: string[] | null): string | null {
  if (entries > 0) return null;
  if (tables.jobs.length === 0) return `${tablePrefix}info has no jobs: check --url and --table-prefix. ${NO_FILE}`;
  const jobs = countBy(tables.jobs, (j) => String(j.jobGroup));
  const groups = new Map(tables.groups.map((g) => [g.appName, jobs.get(String(g.id)) ?? 0]));
  const asked = (apps ?? []).map((a) => `"${a}"`).join(', ');
  return `no job of executor group(s) ${asked} in ${tablePrefix}info; the executor groups (app_name) in ${tablePrefix}group: ${countedNames(groups, 'job')}. Name them with --app. ${NO_FILE}`;
}
