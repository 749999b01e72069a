import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from './serve-web';

/**
 * The server answers 200 with the app for the pages in CONSOLE_PAGES; the app's router decides
 * what each path shows. The two are written apart (the server cannot import the app's TSX), so
 * this reads the router's path literals: a page added to the app and not to the server loaded
 * (bookmark, reload, a link in an alarm mail) as a 404, as /events and /audit did.
 */
const APP = join(__dirname, '../../web/src/app');

function routedPages(): Set<string> {
  const source = ['Routes.tsx', 'App.tsx'].map((f) => readFileSync(join(APP, f), 'utf8')).join('\n');
  const literals = [...source.matchAll(/(?:path === |match\()'\/([^'/]*)/g)].map((m) => m[1]);
  return new Set(literals.filter((segment) => segment !== ''));
}

describe('the console pages the server answers with the app', () => {
  it('are the pages the app routes, every one of them', () => {
    const routed = routedPages();
    expect(routed.size).toBeGreaterThan(10);
    expect([...routed].sort()).toEqual([...CONSOLE_PAGES].sort());
  });
});
