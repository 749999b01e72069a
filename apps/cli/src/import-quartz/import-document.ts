import { stringify } from 'yaml';
import type { QuartzImport } from './quartz-import';

/**
 * The import as a tasks-as-code file (version 1: calendars and tasks, each list sorted by name)
 * that `baton plan -f` / `baton apply -f` take as it is. Its header lists every Quartz trigger
 * and job: the task it became and what was not carried, or why it was not imported — the same
 * report the command prints.
 */
export function importDocument(source: string, imported: QuartzImport): string {
  const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const body = { version: 1, calendars: [...imported.calendars].sort(byName), tasks: [...imported.tasks].sort(byName) };
  const header = [`Baton tasks as code, imported from ${source}. Check with \`baton plan -f <file>\`, apply with \`baton apply -f <file>\`.`, '', ...importReport(imported)];
  return `${header.map((line) => `#${line ? ` ${line}` : ''}`).join('\n')}\n${stringify(body, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** One line per trigger or job (→ its task, or "not imported"), its notes indented under it, then the counts. */
export function importReport(imported: QuartzImport): string[] {
  const lines: string[] = [];
  for (const entry of imported.entries) {
    lines.push(`${entry.source} → ${entry.task === null ? 'NOT IMPORTED' : `task ${entry.task}`}`);
    for (const note of entry.notes) lines.push(`    ${note}`);
  }
  const skipped = imported.entries.filter((e) => e.task === null).length;
  lines.push(`${imported.tasks.length} task(s) and ${imported.calendars.length} calendar(s) imported; ${skipped} trigger(s) not imported.`);
  return lines;
}
