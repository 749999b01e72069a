/**
 * A run's error as it travels (RunCallback.error) and is shown: its first line says what went
 * wrong (`TypeError: card declined`), the lines after it — a stack, a traceback — are the detail.
 * Alarms and pop-ups show the first line and keep the rest apart (issue 13: a demo's alarms page
 * was 5,000 px tall after 20 minutes of full stack traces).
 */

/** Longest summary kept (one line of an alarm or a table cell). */
export const MAX_ERROR_SUMMARY_CHARS = 300;
/** Longest detail kept; the rest is cut with a note of how much. */
export const MAX_ERROR_DETAIL_CHARS = 4_000;

/** The first line of an error (its summary) and the lines after it (null when there are none), both bounded. */
export function splitError(text: string): { summary: string; detail: string | null } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return { summary: '(no error message)', detail: null };
  const summary = bound(lines[first].trim(), MAX_ERROR_SUMMARY_CHARS);
  const rest = lines.slice(first + 1).join('\n').replace(/^\n+|\s+$/g, '');
  return { summary, detail: rest ? bound(rest, MAX_ERROR_DETAIL_CHARS) : null };
}

/**
 * Stack paths made relative to `roots` (the executor's working directory): `/srv/app/dist/x.js`
 * → `dist/x.js`, `file:///srv/app/x.mjs` → `x.mjs`, and anything under a `node_modules` folder
 * → `node_modules/<package>/…`. Shorter to read, and the host's directory layout stays home.
 */
export function relativizePaths(text: string, roots: readonly string[]): string {
  let out = text.replace(/file:\/\//g, '');
  for (const root of roots.filter((r) => r.length > 1).sort((a, b) => b.length - a.length)) {
    const prefix = root.endsWith('/') || root.endsWith('\\') ? root : `${root}/`;
    out = out.split(prefix).join('');
  }
  return out.replace(/(?:[A-Za-z]:)?[\\/][^\s()'"]*?[\\/]node_modules[\\/]/g, 'node_modules/');
}

function bound(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
