/** One item of a `baton import` file's header: the task it became (null: not imported) and every note said of it. */
export interface HeaderEntry {
  task: string | null;
  notes: string[];
}

/**
 * The header of a file `baton import` wrote, item by item (`trigger DEFAULT.a`, `job 7`): each
 * item's own notes (indented under it) and the notes said of several items (after them, each
 * followed by an indented list of the items it holds for: `jobs 1-3, 7; triggers DEFAULT.a`).
 */
export function importHeader(text: string): Map<string, HeaderEntry> {
  const found = new Map<string, HeaderEntry>();
  let last: HeaderEntry | null = null;
  let shared: string | null | undefined; // undefined: still in the item lines
  for (const line of text.split('\n').filter((l) => l.startsWith('#')).map((l) => l.replace(/^# ?/, ''))) {
    if (shared === undefined) {
      const entry = /^(trigger|job) (\S+) → (?:task (\S+)|NOT IMPORTED)$/.exec(line);
      if (entry) found.set(`${entry[1]} ${entry[2]}`, (last = { task: entry[3] ?? null, notes: [] }));
      else if (line.startsWith('    ') && last) last.notes.push(line.slice(4));
      else if (line.startsWith('Said of several ')) shared = null;
    } else if (line.startsWith('    ') && shared !== null) {
      for (const item of items(line.slice(4))) found.get(item)!.notes.push(shared);
    } else {
      shared = line;
    }
  }
  return found;
}

/** `jobs 1-3, 7; triggers DEFAULT.a` → job 1, job 2, job 3, job 7, trigger DEFAULT.a. */
function items(list: string): string[] {
  return list.split('; ').flatMap((part) => {
    const [kinds, ...rest] = part.split(' ');
    const kind = kinds.replace(/s$/, '');
    return rest
      .join(' ')
      .split(', ')
      .flatMap((name) => {
        const range = /^(\d+)-(\d+)$/.exec(name);
        if (!range) return [`${kind} ${name}`];
        return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => `${kind} ${Number(range[1]) + i}`);
      });
  });
}
