// The folder-level import graph of Baton's apps and libs, shared by `npm run floors`
// (scripts/floors/check-floors.cjs) and the ESLint rule `floors/no-back-up-import`.
//
// A unit is one app (apps/<app>/src) or one lib (libs/<lib>/src); its floors are the first-level
// folders under src/. The files directly in an app's src/ make up one more node, `(root)`: the
// app's composition (module, main, index), its top floor. The files directly in a lib's src/ are
// each a node of their own (`types.ts`): a lib's root holds both its barrel (the top) and base
// modules that its folders build on. A lib is also a node of the graph of libs, whose edges are its
// imports of `@baton/<lib>` (or a path into another lib).
// Imports are read with TypeScript's pre-processor (static, dynamic, `require` and `export … from`),
// type-only imports included: a type import ties two floors as much as a value import does.
// Spec files are left out: a spec stands above its floor and may wire any floors (and test kits)
// of its unit together.
/* global require, module, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: runs without a build */
'use strict';
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve, sep } = require('node:path');
const ts = require('typescript');

const ROOT = resolve(__dirname, '..', '..');
const ROOT_NODE = '(root)';
const SKIP = new Set(['node_modules', 'dist', 'web']);
const EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs'];

/** Is the file a test (left out of the graph)? */
const isSpec = (file) => /\.(spec|e2e-spec)\.tsx?$/.test(file);

/** @returns {string[]} every non-spec .ts/.tsx file under `dir`, skipping build output and the web console (its own floors). */
function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !isSpec(path)) files.push(path);
  }
  return files;
}

/** Resolves a specifier written in `fromFile` to an absolute file path, or undefined for a package. */
function resolveImport(fromFile, specifier) {
  let base;
  if (specifier.startsWith('.')) base = resolve(dirname(fromFile), specifier);
  else {
    const m = /^@baton\/([^/]+)(\/.*)?$/.exec(specifier);
    if (!m || !existsSync(join(ROOT, 'libs', m[1], 'src'))) return undefined;
    base = join(ROOT, 'libs', m[1], 'src', m[2] ?? '');
  }
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => join(base, 'index' + e))];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  // A `.js` specifier naming a `.ts` source.
  const stripped = base.replace(/\.js$/, '');
  if (stripped !== base) for (const e of EXTENSIONS) if (existsSync(stripped + e)) return stripped + e;
  return base; // unresolved: still placed in a unit and floor by its path
}

/**
 * Where a file lives: its unit (`apps/engine`, `libs/persistence`) and floor (a first-level folder
 * of src/, or `(root)`), or undefined outside apps/<app>/src and libs/<lib>/src.
 */
function placeOf(file) {
  const parts = relative(ROOT, file).split(sep);
  if (parts.length < 4 || (parts[0] !== 'apps' && parts[0] !== 'libs') || parts[2] !== 'src') return undefined;
  const unit = `${parts[0]}/${parts[1]}`;
  if (unit === 'apps/console' && parts[3] === 'web') return undefined;
  if (parts.length > 4) return { unit, floor: parts[3] };
  return { unit, floor: parts[0] === 'apps' ? ROOT_NODE : parts[3].replace(/(\.d)?\.tsx?$/, '.ts') };
}

/** The units of the repository: every apps/<app>/src and libs/<lib>/src. */
function units() {
  const found = [];
  for (const top of ['apps', 'libs']) {
    for (const name of readdirSync(join(ROOT, top)).sort()) {
      if (existsSync(join(ROOT, top, name, 'src'))) found.push(`${top}/${name}`);
    }
  }
  return found;
}

/**
 * One import of the graph: where it is written, what it names, the file it resolves to, and that
 * file's unit and floor.
 * @typedef {{ file: string, line: number, specifier: string, target: string, to: { unit: string, floor: string } }} ImportSite
 */

/** Per process: the files of each unit and the import sites of each file read from disk. */
const cache = { files: undefined, sites: new Map(), graphs: undefined };

/** @returns {Map<string, string[]>} unit → its non-spec source files */
function filesByUnit() {
  cache.files ??= new Map(units().map((unit) => [unit, sourceFiles(join(ROOT, unit, 'src'))]));
  return cache.files;
}

/** The imports of a file that land in apps/<app>/src or libs/<lib>/src, from `text` or else from disk. */
function sitesOf(file, text) {
  if (text === undefined && cache.sites.has(file)) return cache.sites.get(file);
  const sites = [];
  for (const { specifier, line } of importSites(text ?? readFileSync(file, 'utf8'))) {
    const target = resolveImport(file, specifier);
    const to = target && placeOf(target);
    if (to) sites.push({ file: relative(ROOT, file), line, specifier, target: relative(ROOT, target), to });
  }
  if (text === undefined) cache.sites.set(file, sites);
  return sites;
}

/**
 * Builds the graphs: per unit, floor → floor → import sites; for the libs, lib → lib → sites;
 * and the relative imports that reach into a lib's src/ from outside that lib.
 * @param {{ units?: string[], live?: { file: string, text: string } }} [options] only these units'
 *   floor graphs (all by default); a file's text as edited, in place of the one on disk
 */
function buildGraphs(options = {}) {
  /** @type {Map<string, Map<string, Map<string, ImportSite[]>>>} */
  const floors = new Map();
  /** @type {Map<string, Map<string, ImportSite[]>>} */
  const libs = new Map();
  /** @type {ImportSite[]} */
  const reaches = [];
  const add = (graph, from, to, site) => {
    if (!graph.has(from)) graph.set(from, new Map());
    const edges = graph.get(from);
    if (!edges.has(to)) edges.set(to, []);
    edges.get(to).push(site);
  };
  const live = options.live;
  for (const [unit, unitFiles] of filesByUnit()) {
    const wanted = !options.units || options.units.includes(unit);
    if (!wanted && !unit.startsWith('libs/')) continue;
    // (an unwanted lib is still read: the graph of libs needs its imports)
    const nodes = new Map();
    if (wanted) floors.set(unit, nodes);
    const files = live && placeOf(live.file)?.unit === unit && !unitFiles.includes(live.file) ? [...unitFiles, live.file] : unitFiles;
    for (const file of files) {
      const from = placeOf(file);
      if (wanted && !nodes.has(from.floor)) nodes.set(from.floor, new Map());
      for (const site of sitesOf(file, live?.file === file ? live.text : undefined)) {
        const to = site.to;
        if (wanted && to.unit === unit && to.floor !== from.floor) add(nodes, from.floor, to.floor, site);
        if (to.unit.startsWith('libs/') && to.unit !== unit) {
          if (unit.startsWith('libs/')) add(libs, unit, to.unit, site);
          if (site.specifier.startsWith('.')) reaches.push(site);
        }
      }
    }
  }
  return { floors, libs, reaches };
}

/**
 * The graphs as a linter sees them while it checks `file`: built from disk once a process, and
 * built again with `text` in place of the file when its imports differ from the file on disk
 * (an editor's unsaved change).
 */
function graphsWhileLinting(file, text) {
  cache.graphs ??= buildGraphs();
  const onDisk = cache.sites.get(file);
  const live = sitesOf(file, text);
  const same = onDisk && onDisk.length === live.length && onDisk.every((s, i) => s.target === live[i].target);
  return same ? cache.graphs : buildGraphs({ units: [placeOf(file).unit], live: { file, text } });
}

/** The import specifiers of a text with their 1-based lines. */
function importSites(text) {
  const info = ts.preProcessFile(text, true, true);
  const lineStarts = ts.computeLineStarts(text);
  return info.importedFiles.map((f) => ({
    specifier: f.fileName,
    line: ts.computeLineAndCharacterOfPosition(lineStarts, f.pos).line + 1,
  }));
}

/** Strongly connected components of a graph (Tarjan), each a sorted list of nodes; only those of 2+ nodes. */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
    }
    if (low.get(v) === indices.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return found;
}

/** Pairs of nodes that import each other: [a, b, a→b sites, b→a sites], a < b. */
function mutualPairs(graph) {
  const pairs = [];
  for (const [a, edges] of graph) {
    for (const [b, sites] of edges) {
      if (a < b && graph.get(b)?.has(a)) pairs.push([a, b, sites, graph.get(b).get(a)]);
    }
  }
  return pairs.sort((x, y) => (x[0] + x[1]).localeCompare(y[0] + y[1]));
}

/** Is `to` reachable from `from` along the graph's edges? Returns the path (from … to) or undefined. */
function pathBetween(graph, from, to) {
  const previous = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === to) {
      const path = [];
      for (let w = to; w !== undefined; w = previous.get(w)) path.unshift(w);
      return path;
    }
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}

module.exports = { ROOT, ROOT_NODE, buildGraphs, cycles, graphsWhileLinting, isSpec, mutualPairs, pathBetween, placeOf, resolveImport };
