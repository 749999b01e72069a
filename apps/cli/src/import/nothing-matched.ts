/**
 * Why an import that matched nothing is refused: its file would hold `tasks: []`, and applying
 * that with `--prune` deletes every task of the tenant. The message names what the flags asked
 * for and what the tables hold instead, so the next command can name it; so does the warning for
 * names that matched nothing while others did.
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

type XxlJobTablesRead = { groups: ReadonlyArray<{ id: number; appName: string }>; jobs: ReadonlyArray<{ jobGroup: number }> };

/** XXL-JOB: the info table has no jobs, or --app named no executor group with jobs; null when something matched. */
export function xxlJobNothingMatched(tables: XxlJobTablesRead, entries: number, tablePrefix: string, apps: string[] | null): string | null {
  if (entries > 0) return null;
  if (tables.jobs.length === 0) return `${tablePrefix}info has no jobs: check --url and --table-prefix. ${NO_FILE}`;
  const asked = (apps ?? []).map((a) => `"${a}"`).join(', ');
  return `no job of executor group(s) ${asked} in ${tablePrefix}info; the executor groups (app_name) in ${tablePrefix}group: ${countedNames(executorGroups(tables), 'job')}. Name them with --app. ${NO_FILE}`;
}

/**
 * When some --app / --job-group names matched and others did not: the others, each named, with
 * what the tables hold (null when each matched). The import goes on with the names that matched;
 * unsaid, a mistyped name's jobs were missing from the file with no word.
 */
export function xxlJobPartlyMatched(tables: XxlJobTablesRead, tablePrefix: string, apps: string[] | null): string | null {
  const groups = executorGroups(tables);
  const missed = unmatched(apps, groups);
  return missed === null ? null : `--app ${missed} matched no executor group with jobs; the executor groups (app_name) in ${tablePrefix}group: ${countedNames(groups, 'job')}. The other --app names are imported.`;
}

export function quartzPartlyMatched(store: { jobs: ReadonlyArray<{ group: string }> }, scheduler: string, jobGroups: string[] | null): string | null {
  const groups = countBy(store.jobs, (j) => j.group);
  const missed = unmatched(jobGroups, groups);
  return missed === null ? null : `--job-group ${missed} matched no job group of scheduler "${scheduler}"; its job groups: ${countedNames(groups, 'job')}. The other --job-group names are imported.`;
}

/** Each executor group's app name and its job count. */
function executorGroups(tables: XxlJobTablesRead): Map<string, number> {
  const jobs = countBy(tables.jobs, (j) => String(j.jobGroup));
  return new Map(tables.groups.map((g) => [g.appName, jobs.get(String(g.id)) ?? 0]));
}

/** The names asked for that have no items, quoted, each once; null when there are none. */
function unmatched(asked: string[] | null, counts: ReadonlyMap<string, number>): string | null {
  const missed = [...new Set(asked ?? [])].filter((name) => !((counts.get(name) ?? 0) > 0));
  return missed.length === 0 ? null : missed.map((name) => `"${name}"`).join(', ');
}
