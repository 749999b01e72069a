#!/usr/bin/env node
// `npm run floors`: counts what breaks the floors of the apps and libs, from their import graph
// (scripts/floors/import-graph.cjs says what a unit, floor and import are).
//   - pairs of floors of one unit that import each other, with every import of the weaker side
//     (the back-up imports: a folder's imports of the app's root, else the side with fewer sites);
//   - longer folder cycles (a strongly connected set of 3+ floors);
//   - libs that import each other (through `@baton/…` or a path);
//   - relative imports into a lib's src/ from outside that lib.
// Exits 1 when it finds any of them. `--quiet` prints the counts only.
/* global require, process, console */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: runs without a build */
'use strict';
const { ROOT_NODE, buildGraphs, cycles, mutualPairs } = require('./import-graph.cjs');

const quiet = process.argv.includes('--quiet');
const { floors, libs, reaches } = buildGraphs();
const say = (line) => quiet || console.log(line);
const siteText = (s) => `      ${s.file}:${s.line}  '${s.specifier}'`;

let pairCount = 0;
let backUpCount = 0;
let cycleCount = 0;
for (const [unit, graph] of floors) {
  const pairs = mutualPairs(graph);
  const longer = cycles(graph).filter((c) => c.length > 2);
  if (pairs.length === 0 && longer.length === 0) continue;
  say(`${unit}`);
  for (const [a, b, ab, ba] of pairs) {
    // An app's root is its top floor: the folder's import of it is the one that points up.
    const aUp = b === ROOT_NODE || (a !== ROOT_NODE && ab.length <= ba.length);
    const [up, down, upSites] = aUp ? [a, b, ab] : [b, a, ba];
    say(`  ${a} <-> ${b}: ${ab.length} import(s) ${a} -> ${b}, ${ba.length} ${b} -> ${a}; back up: ${up} -> ${down}`);
    for (const s of upSites) say(siteText(s));
    pairCount++;
    backUpCount += upSites.length;
  }
  for (const cycle of longer) {
    say(`  cycle of ${cycle.length} folders: ${cycle.join(', ')}`);
    for (const from of cycle) {
      for (const [to, sites] of graph.get(from)) if (cycle.includes(to)) say(`    ${from} -> ${to} (${sites.length})`);
    }
    cycleCount++;
  }
}

const libPairs = mutualPairs(libs);
const libCycles = cycles(libs).filter((c) => c.length > 2);
for (const [a, b, ab, ba] of libPairs) {
  say(`libs: ${a} <-> ${b}`);
  for (const s of [...ab, ...ba]) say(siteText(s));
}
for (const cycle of libCycles) say(`libs: cycle of ${cycle.length}: ${cycle.join(', ')}`);
if (reaches.length > 0) say('relative imports into a lib\'s src/ from outside it:');
for (const s of reaches) say(siteText(s));

const total = pairCount + cycleCount + libPairs.length + libCycles.length + reaches.length;
console.log(
  `floors: ${pairCount} folder pair(s) importing each other (${backUpCount} back-up import(s)), ` +
    `${cycleCount} longer folder cycle(s), ${libPairs.length + libCycles.length} lib cycle(s), ` +
    `${reaches.length} relative import(s) into a lib's src/ from outside it`,
);
process.exitCode = total > 0 ? 1 : 0;
