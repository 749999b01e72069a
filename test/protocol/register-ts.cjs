/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, __dirname */
'use strict';
/**
 * Lets Node run the TypeScript sources directly (`node -r ./test/protocol/register-ts.cjs
 * apps/demo-executor/src/main.ts`), for tests that start executors as separate OS processes
 * without a build. Compiles each .ts file with SWC (decorator metadata on, CommonJS) and maps
 * the `@baton/*` paths of tsconfig.json to their sources.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '../..');
const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
const aliases = Object.entries(tsconfig.compilerOptions.paths || {}).map(([name, targets]) => [name, path.join(root, targets[0])]);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  for (const [name, target] of aliases) {
    if (request === name || request.startsWith(name + '/')) {
      request = target + request.slice(name.length);
      break;
    }
  }
  return resolveFilename.call(this, request, parent, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
  });
  module._compile(code, filename);
};
