/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHOWN_CODES } from '../labels';
import { zhCN } from './zh-CN';

const SRC = join(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.spec.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every literal key of `t('…')`, `i18n.t('…')` and `msg('…')` (a key marked for the catalogue, translated later). */
function keysInSources(): Map<string, string> {
  const keys = new Map<string, string>();
  const call = /\b(?:t|msg)\(\s*(['"])((?:\\.|(?!\1).)*)\1/g;
  for (const file of sources(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(call)) keys.set(m[2].replace(/\\(['"\\])/g, '$1'), file.slice(SRC.length + 1));
  }
  for (const code of SHOWN_CODES) keys.set(code, 'labels.ts (a domain code)');
  return keys;
}

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('the zh-CN catalogue', () => {
  const keys = keysInSources();

  it('finds the keys of the sources', () => {
    expect(keys.size).toBeGreaterThan(300);
  });

  it('translates every key the sources use', () => {
    const missing = [...keys].filter(([k]) => !(k in zhCN)).map(([k, file]) => `${file}: ${k}`);
    expect(missing).toEqual([]);
  });

  it('holds no key the sources no longer use', () => {
    expect(Object.keys(zhCN).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('keeps every {{placeholder}} of each key, and translates (no entry is the English key again)', () => {
    const wrong = Object.entries(zhCN).filter(([k, v]) => placeholders(k).join() !== placeholders(v).join() || (v === k && /[a-z]{3}/i.test(k)));
    expect(wrong).toEqual([]);
  });
});
