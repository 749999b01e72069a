#!/usr/bin/env node
// The `baton` command (package.json "bin"): builds what changed since the last build
// (scripts/build-if-stale.js, a no-op on an unchanged tree), then runs the compiled CLI
// (apps/cli/src/main.ts). `baton --help` lists the commands.
/* global require, process */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: it runs before anything is compiled */
'use strict';
try {
  require('../scripts/build-if-stale.js').buildIfStale();
} catch {
  process.stderr.write('baton: the build failed (output above)\n');
  process.exit(1);
}
require('../dist/apps/cli/src/main.js').main(process.argv.slice(2));
