import { knownVariableNames } from './schema';

/**
 * One warning per `BATON_*` variable of `env` that no process, test or script reads — usually
 * a typo, which would otherwise be ignored silently: `unknown variable BATON_ENGINE_SLOT (did
 * you mean BATON_ENGINE_SLOTS?)`.
 */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv): string[] {
  const known = knownVariableNames();
  return Object.keys(env)
    .filter((name) => name.startsWith('BATON_') && !known.has(name))
    .sort()
    .map((name) => {
      const near = closest(name, known);
      return `unknown variable ${name}${near ? ` (did you mean ${near}?)` : ''}: ignored`;
    });
}

/** The known name nearest to `name`, if a few edits away. */
function closest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 5)) + 1;
  for (const candidate of known) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}
