/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, process */
'use strict';
/**
 * Preloaded into engine processes by `npm run bench -- burst --profile` (and the console's, engines'
 * and executor's by `run-now --profile`; NODE_OPTIONS=-r …,
 * since --cpu-prof is not allowed there): the V8 CPU profiler starts on SIGUSR2 (sent by the
 * bench just after seeding, so module loading and start-up are not in the profile) and the
 * profile is written to $BENCH_PROFILE_DIR/<pid>.cpuprofile on SIGTERM or exit.
 */
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
// Worker threads inherit NODE_OPTIONS, but may not listen for signals (it throws there): main thread only.
if (dir && require('node:worker_threads').isMainThread) {
  const session = new inspector.Session();
  session.connect();
  let started = false;
  // SIGUSR2 unless told (a Nest app with shutdown hooks, the console's, shuts down on SIGUSR2: it gets SIGWINCH).
  process.on(process.env.BENCH_PROFILE_SIGNAL || 'SIGUSR2', () => {
    if (started) return;
    started = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
  });
  let written = false;
  const write = () => {
    if (!started || written) return;
    written = true;
    // Same-thread inspector sessions answer synchronously, so this works in an exit hook.
    session.post('Profiler.stop', (err, result) => {
      if (err || !result) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  // On SIGTERM (the bench's stop; the graceful shutdown may end in a SIGKILL) or at exit.
  process.once('SIGTERM', write);
  process.on('exit', write);
}
