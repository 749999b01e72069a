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

/**
 * One line per source item (→ its task, or "not imported"), its own notes indented under it; then
 * each note said of several items, once, with the items it holds for (a route or block strategy
 * thousands of jobs share took half of a large group's file, and pushed it past the console's
 * body limit); then the counts; then what holds for the whole import (last, where it is read).
 */
export function importReport(imported: Imported, noun: ItemNoun): string[] {
  const holders = new Map<string, string[]>();
  for (const entry of imported.entries) for (const note of new Set(entry.notes)) holders.set(note, [...(holders.get(note) ?? []), entry.source]);
  const shared = [...holders].filter(([, sources]) => sources.length > 1);
  const lines: string[] = [];
  for (const entry of imported.entries) {
    lines.push(`${entry.source} → ${entry.task === null ? 'NOT IMPORTED' : `task ${entry.task}`}`);
    for (const note of entry.notes) if (holders.get(note)!.length === 1) lines.push(`    ${note}`);
  }
  if (shared.length > 0) lines.push('', `Said of several ${noun}s (each note, then the items it holds for):`);
  for (const [note, sources] of shared) lines.push(note, `    ${itemList(sources)}`);
  const skipped = imported.entries.filter((e) => e.task === null).length;
  const dependencies = imported.dependencies.length > 0 ? `, ${imported.dependencies.length} dependency(ies)` : '';
  lines.push(`${imported.tasks.length} task(s)${dependencies} and ${imported.calendars.length} calendar(s) imported; ${skipped} ${noun}(s) not imported.`);
  if (imported.tasks.length > 0) for (const note of imported.notes) lines.push('', note);
  return lines;
}

/** "jobs 1-3, 7; triggers DEFAULT.a, DEFAULT.b": items by their kind, whole-number names in runs. */
export function itemList(sources: readonly string[]): string {
  const byKind = new Map<string, string[]>();
  for (const source of sources) {
    const space = source.indexOf(' ');
    const kind = source.slice(0, space);
    byKind.set(kind, [...(byKind.get(kind) ?? []), source.slice(space + 1)]);
  }
  return [...byKind].map(([kind, names]) => `${kind}s ${runs(names).join(', ')}`).join('; ');
}

/** Consecutive whole numbers as `a-b` (in the order given); any other name as it is. */
function runs(names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < names.length; i++) {
    let j = i;
    while (j + 1 < names.length && /^\d+$/.test(names[i]) && /^\d+$/.test(names[j + 1]) && Number(names[j + 1]) === Number(names[j]) + 1) j++;
    out.push(j - i >= 2 ? `${names[i]}-${names[j]}` : names[i]);
    if (j - i === 1) out.push(names[j]);
    i = j;
  }
  return out;
}
