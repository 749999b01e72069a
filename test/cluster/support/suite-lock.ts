import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One cluster test file at a time on this machine. Each file starts several engine and executor
 * processes and measures lateness; two of them at once on a small machine (vitest may run files
 * in parallel, a colleague may run the suite too) would measure each other. The lock is a file
 * created exclusively, holding the owner's PID; a lock whose owner is gone is taken over.
 */
const LOCK_FILE = join(tmpdir(), 'baton-cluster-suite.lock');

/** The lock file's content, and whether that owner is alive. */
function owner(): { text: string; alive: boolean } | null {
  let text: string;
  try {
    text = readFileSync(LOCK_FILE, 'utf8').trim();
  } catch {
    return null;
  }
  if (text === '') {
    // Being written by its new owner (between create and write) — unless that was long ago.
    try {
      return { text, alive: Date.now() - statSync(LOCK_FILE).mtimeMs < 5_000 };
    } catch {
      return null;
    }
  }
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return { text, alive: false };
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return { text, alive: true };
  } catch (err) {
    return { text, alive: (err as NodeJS.ErrnoException).code === 'EPERM' };
  }
}

/** Waits until this process holds the lock; returns its release. */
export async function acquireSuiteLock(timeoutMs = 240_000): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(LOCK_FILE, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(LOCK_FILE, 'utf8').trim() === String(process.pid)) rmSync(LOCK_FILE, { force: true });
        } catch {
          // gone already
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const current = owner();
    if (current && !current.alive) {
      // A dead owner's lock: remove it unless someone else replaced it meanwhile.
      if (owner()?.text === current.text) rmSync(LOCK_FILE, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another cluster test holds ${LOCK_FILE} for more than ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
