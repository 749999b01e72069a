#!/usr/bin/env node
// Runs the parts of `npm run build` whose inputs changed since their last build by this script,
// so `npm start` and `baton …` start at once on an unchanged tree (a full build takes ~15 s).
//   node scripts/build-if-stale.js            build what is stale, say so on stderr
//   node scripts/build-if-stale.js --all      build everything (`npm run build`)
//   node scripts/build-if-stale.js --check    exit 1 when something is stale, build nothing
// A part is stale when a file under its inputs is newer than the time its last build started, or
// the list of those files is not the one it built from (a file deleted, renamed or added) — both
// kept in dist/.build-stamps/<part>.json, written after the build succeeded — or when that stamp
// or the part's main output is missing. Build outputs are not inputs: folders named dist (what
// `npm run pack:sdk` writes into libs/<pkg>/dist), .tmp, data and node_modules are skipped, and a
// folder's own mtime does not count (creating libs/<pkg>/dist changes libs/<pkg>'s).
// Only builds through this script write stamps: after a bare `npm run build:server` the next start builds once more.
/* global require, module, process, console, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: it runs before anything is compiled */
'use strict';
const { execSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const STAMPS = join(ROOT, 'dist', '.build-stamps');
const LOCK = join(ROOT, 'dist', '.build-lock');
const SKIP = new Set(['node_modules', 'dist', '.tmp', 'data']);
const COMMON = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** The build's parts: their npm script, the paths (relative to the root) it reads, and a file it writes. */
const PARTS = [
  { name: 'server', script: 'build:server', inputs: [...COMMON, 'tsconfig.build.json', 'apps', 'libs', 'migrations'], skip: ['apps/console/web'], output: 'dist/apps/cli/src/main.js' },
  { name: 'web', script: 'build:web', inputs: [...COMMON, 'apps/console/web'], skip: [], output: 'dist/console-web/index.html' },
];

/**
 * The files under a part's inputs (relative to `root`, minus the skipped folders): the newest
 * mtime (ms) among them, and a digest of their paths (a file deleted, renamed or added changes it).
 */
function scanInputs(part, root = ROOT) {
  const files = [];
  let newest = 0;
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(join(root, path));
    } catch {
      return;
    }
    if (!stat.isDirectory()) {
      files.push(path);
      newest = Math.max(newest, stat.mtimeMs);
      return;
    }
    for (const entry of readdirSync(join(root, path))) {
      const child = `${path}/${entry}`;
      if (SKIP.has(entry) || part.skip.includes(child)) continue;
      visit(child);
    }
  };
  for (const input of part.inputs) visit(input);
  return { newest, files: createHash('sha256').update(files.sort().join('\n')).digest('hex') };
}

function readStamp(part) {
  try {
    return JSON.parse(readFileSync(join(STAMPS, `${part.name}.json`), 'utf8'));
  } catch {
    return null;
  }
}

/** Whether a part must be built again, given its last stamp (null: none) and its inputs under `root`. */
function isStale(part, stamp, root = ROOT) {
  if (!stamp || !existsSync(join(root, part.output))) return true;
  const inputs = scanInputs(part, root);
  return inputs.newest >= stamp.startedAt || inputs.files !== stamp.files;
}

/** The parts whose inputs changed since their last stamped build. */
function staleParts() {
  return PARTS.filter((part) => isStale(part, readStamp(part)));
}

/**
 * Runs `fn` holding the build lock (a folder with the holder's PID: two starts at once, e.g. the
 * test files of one `npm test`, must not write dist/ together). A lock whose holder died is taken over.
 */
function withBuildLock(fn) {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      let holder = 0;
      try {
        holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
        process.kill(holder, 0);
      } catch {
        if (holder) rmSync(LOCK, { recursive: true, force: true }); // its holder is gone
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds the stale parts, or every part with `all` (output inherited, on stderr); returns their names. Throws when a build fails. */
function buildIfStale(all = false) {
  if (!all && staleParts().length === 0) return [];
  return withBuildLock(() => buildParts(all ? PARTS : staleParts(), !all));
}

/** Why a part is built: a fresh clone has never built it (not "sources changed": nothing was built to change since). */
function announcement(part) {
  const never = readStamp(part) === null || !existsSync(join(ROOT, part.output));
  return never
    ? `no ${part.name} build yet (a fresh clone, or dist/ removed): building it once (npm run ${part.script})`
    : `sources changed since the last ${part.name} build: npm run ${part.script}`;
}

function buildParts(stale, announce) {
  for (const part of stale) {
    const startedAt = Date.now();
    // Listed before the build: a file deleted while it runs makes the next start build again.
    const { files } = scanInputs(part);
    if (announce) console.error(`baton: ${announcement(part)}`);
    execSync(`npm run --silent ${part.script}`, { cwd: ROOT, stdio: ['ignore', process.stderr, process.stderr] });
    mkdirSync(STAMPS, { recursive: true });
    writeFileSync(join(STAMPS, `${part.name}.json`), `${JSON.stringify({ startedAt, builtAt: Date.now(), files })}\n`);
  }
  return stale.map((part) => part.name);
}

module.exports = { buildIfStale, staleParts, announcement, isStale, scanInputs };

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const stale = staleParts();
    if (stale.length > 0) console.error(`stale: ${stale.map((p) => p.name).join(', ')}`);
    process.exit(stale.length > 0 ? 1 : 0);
  }
  try {
    buildIfStale(process.argv.includes('--all'));
  } catch {
    process.exit(1);
  }
}
