// ESLint plugin `floors`: keeps the floors of the apps and libs in order (imports point down only).
// Rule `floors/no-back-up-import` reports, in a non-spec file of apps/<app>/src or libs/<lib>/src:
//   - an import of another floor of the same unit that imports this floor back, directly or
//     through other floors (the graph and its units and floors: scripts/floors/import-graph.cjs);
//   - an import of another lib that imports this lib back (through `@baton/…`);
//   - a relative import into a lib's src/ from outside it (a lib is imported by its `@baton/…` name);
//   - an import of an app from a lib (libs sit below the apps).
// `npm run floors` prints the whole graph's pairs and cycles.
/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: loaded by eslint.config.mjs */
'use strict';
const { graphsWhileLinting, isSpec, pathBetween, placeOf, resolveImport } = require('./import-graph.cjs');

const noBackUpImport = {
  meta: {
    type: 'problem',
    docs: { description: 'an import points down a floor: no two folders of an app or lib, and no two libs, import each other' },
    schema: [],
    messages: {
      backUp: '{{from}} imports {{to}}, which imports {{from}} back ({{path}}): imports point down only; move what both use to a floor below both (an app\'s ground floor is common/).',
      libCycle: '{{from}} imports {{to}}, which imports {{from}} back ({{path}}): move what both use to a lib below both.',
      reach: 'a relative import into {{to}}/src: import the lib through its @baton/… name.',
      libIntoApp: 'a lib imports {{to}}: libs sit below the apps.',
    },
  },
  create(context) {
    const file = context.filename;
    const from = placeOf(file);
    if (!from || isSpec(file)) return {};
    let graphs;
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const target = resolveImport(file, specifier);
      const to = target && placeOf(target);
      if (!to) return;
      const fromLib = from.unit.startsWith('libs/');
      if (fromLib && to.unit.startsWith('apps/')) return context.report({ node, messageId: 'libIntoApp', data: { to: to.unit } });
      if (to.unit.startsWith('libs/') && to.unit !== from.unit && specifier.startsWith('.')) {
        return context.report({ node, messageId: 'reach', data: { to: to.unit } });
      }
      graphs ??= graphsWhileLinting(file, context.sourceCode.text);
      if (to.unit === from.unit && to.floor !== from.floor) {
        const path = pathBetween(graphs.floors.get(from.unit) ?? new Map(), to.floor, from.floor);
        if (path) context.report({ node, messageId: 'backUp', data: { from: from.floor, to: to.floor, path: path.join(' → ') } });
      } else if (fromLib && to.unit.startsWith('libs/') && to.unit !== from.unit) {
        const path = pathBetween(graphs.libs, to.unit, from.unit);
        if (path) context.report({ node, messageId: 'libCycle', data: { from: from.unit, to: to.unit, path: path.join(' → ') } });
      }
    };
    const fromSource = (node) => node.source && check(node.source, node.source.value);
    return {
      ImportDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ImportExpression: fromSource,
      TSImportEqualsDeclaration: (node) => node.moduleReference.expression && check(node, node.moduleReference.expression.value),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
      'CallExpression[callee.name="require"]': (node) => node.arguments[0]?.type === 'Literal' && check(node, node.arguments[0].value),
    };
  },
};

module.exports = { meta: { name: 'floors' }, rules: { 'no-back-up-import': noBackUpImport } };
