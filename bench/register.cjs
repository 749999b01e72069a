/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, __dirname */
'use strict';
/**
 * Runs the benchmarks from TypeScript sources without a build: test/protocol/register-ts.cjs
 * (SWC + the @baton/* paths), plus one mapping — `vitest` → bench/support/vitest-shim.cjs — so the
 * cluster harness of test/cluster/support (which registers vitest hooks in helpers the bench never
 * calls) can be imported outside the test runner.
 */
const path = require('node:path');
const Module = require('node:module');
require(path.resolve(__dirname, '../test/protocol/register-ts.cjs'));

const shim = path.resolve(__dirname, 'support/vitest-shim.cjs');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request === 'vitest') return shim;
  return resolveFilename.call(this, request, parent, ...rest);
};
