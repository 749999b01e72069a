#!/usr/bin/env node
// Builds the publishable packages (npm run build:packages; npm run pack:sdk also packs them):
// @baton/protocol, then @baton/executor-sdk — or only those named (`build-packages.js protocol`:
// each package's `prepack` builds what it needs, so a plain `npm pack` / `npm publish` in its folder ships dist/), each with tsc (CommonJS + .d.ts, the repo's compiler
// options) and tsc-alias into libs/<pkg>/dist. libs/<pkg>/tsconfig.package.json says what each
// package compiles in and why. Order matters: the SDK resolves @baton/protocol through
// node_modules (the npm workspace link), whose types are the protocol's built dist.
/* global require, process, console, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, like build-if-stale.js */
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
const tscAlias = join(dirname(require.resolve('tsc-alias/package.json')), 'dist', 'bin', 'index.js');

const ALL = ['protocol', 'executor-sdk'];
const wanted = process.argv.slice(2);
const unknown = wanted.filter((p) => !ALL.includes(p));
if (unknown.length) {
  console.error(`build-packages.js: no package ${unknown.join(', ')} (packages: ${ALL.join(', ')})`);
  process.exit(2);
}

for (const pkg of ALL.filter((p) => wanted.length === 0 || wanted.includes(p))) {
  const dir = join(root, 'libs', pkg);
  const project = join(dir, 'tsconfig.package.json');
  const started = Date.now();
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  try {
    // Everything on stderr: as a prepack script its stdout would be mixed into `npm pack --json`.
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: ['ignore', 2, 2] });
    execFileSync(process.execPath, [tscAlias, '-p', project], { cwd: root, stdio: ['ignore', 2, 2] });
  } catch {
    console.error(`building @baton/${pkg} failed (see above)`);
    process.exit(1);
  }
  console.error(`built @baton/${pkg} → libs/${pkg}/dist (${Date.now() - started} ms)`);
}
