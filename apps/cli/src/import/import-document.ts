import { stringify } from 'yaml';
import type { Imported } from './imported';

/** How the source calls the items its entries list (Quartz: triggers; XXL-JOB: jobs), for the report's last line. */
export type ItemNoun = 'trigger' | 'job';

/**
 * The import as a tasks-as-code file (version 1: calendars, tasks and dependencies, each sorted)
 * that `baton plan -f` / `baton apply -f` take as it is. Its header lists every item of the
 * source: the task it became and what was not carried, or why it was not imported — the same
 * report the command prints.
 */
export function importDocument(source: string, imported: Imported, noun: ItemNoun): string {
  const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const edge = (d: { parent: string; child: string }) => ({ name: `${d.parent}\u0000${d.child}` });
  const body = {
    version: 1,
    calendars: [...imported.calendars].sort(byName),
    tasks: [...imported.tasks].sort(byName),
    ...(imported.dependencies.length > 0 ? { dependencies: [...imported.dependencies].sort((a, b) => byName(edge(a), edge(b))) } : {}),
  };
  const header = [`Baton tasks as code, imported from ${source}. Check with \`baton plan -f <file>\`, apply with \`baton apply -f <file>\`.`, '', ...importReport(imported, noun)];
  return `${header.map((line) => `#${line ? ` ${line}` : ''}`).join('\n')}\n${stringify(body, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** One line per source item (→ its task, or "not imported"), its notes indented under it, then the counts, then what holds for the whole import (last, where it is read). */
export function importReport(imported: Imported, noun: ItemNoun): string[] {
  const lines: string[] = [];
  for (const entry of imported.entries) {
    lines.push(`${entry.source} → ${entry.task === null ? 'NOT IMPORTED' : `task ${entry.task}`}`);
    for (const note of entry.notes) lines.push(`    ${note}`);
  }
  const skipped = imported.entries.filter((e) => e.task === null).length;
  const dependencies = imported.dependencies.length > 0 ? `, ${imported.dependencies.length} dependency(ies)` : '';
  lines.push(`${imported.tasks.length} task(s)${dependencies} and ${imported.calendars.length} calendar(s) imported; ${skipped} ${noun}(s) not imported.`);
  if (imported.tasks.length > 0) for (const note of imported.notes) lines.push('', note);
  return lines;
}
