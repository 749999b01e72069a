#!/usr/bin/env node
// Runs the migrations against BATON_DB_URL (or the first argument) and lists what ran.
// Usage: npm run migration:run            (builds first; BATON_DB_URL=mysql://…/baton or sqlite:data/baton.sqlite)
//        node scripts/migrate.mjs mysql://baton:baton@127.0.0.1:3407/baton
// Engines and consoles also run pending migrations when they open the database, so this is for
// migrating ahead of a roll-out. It uses the compiled code in dist/ (npm run build).
/* global process, console */
import { createRequire } from 'node:module';

const url = process.argv[2] ?? process.env.BATON_DB_URL;
if (!url) {
  console.error('usage: node scripts/migrate.mjs <database URL>   (or set BATON_DB_URL)');
  process.exit(2);
}
const require = createRequire(import.meta.url);
let persistence;
try {
  persistence = require('../dist/libs/persistence/src/index.js');
} catch (err) {
  console.error(`cannot load dist/libs/persistence (run npm run build first): ${err.message}`);
  process.exit(1);
}
const safeUrl = url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
try {
  const dataSource = await persistence.openDatabase(url);
  const rows = await dataSource.query(`SELECT name FROM ${dataSource.driver.escape('migrations')} ORDER BY id`);
  console.log(`${safeUrl}: schema up to date; applied migrations:\n  ${rows.map((r) => r.name).join('\n  ')}`);
  await dataSource.destroy();
} catch (err) {
  console.error(`${safeUrl}: migration failed: ${err.message}`);
  process.exit(1);
}
