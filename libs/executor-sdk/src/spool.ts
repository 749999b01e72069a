import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunCallback } from '@baton/protocol';
import { callbackJson } from './callback-json';

/** One final callback waiting for an engine's acknowledgement. */
export interface SpoolEntry {
  /** `${runId}:${attempt}`. */
  id: string;
  /** When it was written (epoch ms). */
  at: number;
  /** The dispatch's callbackUrls (tried before the configured engine URLs). */
  urls: string[];
  callback: RunCallback;
}

/**
 * The spool file format (JSON Lines, append-only, one object per line):
 *
 *     {"op":"add","id":"42:1","at":1732240000000,"urls":["http://engine-1:8090"],"callback":{…RunCallback…}}
 *     {"op":"done","id":"42:1"}
 *
 * An `add` is written before the callback's first send; a `done` when an engine acknowledged it.
 * On open, and whenever dead lines outnumber live ones (past `compactMinLines`), the file is
 * rewritten with only the pending `add`s (write to `<file>.tmp`, then rename). A torn last line
 * (crash mid-write) is skipped. `<file>.lock` holds the owner's pid: one live process per file.
 *
 * The lines of one turn of the event loop are appended together, at its end, in one synchronous
 * write: the runs of a wave end in the same turn, and a write to the page cache costs less on the
 * main thread than handing it to the thread pool and waiting for its answer.
 */
export class CallbackSpool {
  private readonly live = new Map<string, { entry: SpoolEntry; line: string }>();
  private fd: number | null = null;
  private fileLines = 0;
  private buffer: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private flushing: NodeJS.Immediate | null = null;
  private closed = false;

  private constructor(
    /** The file, or null for a memory-only spool. */
    readonly file: string | null,
    private readonly compactMinLines: number,
  ) {}

  /**
   * Opens (or creates) the spool and returns it with the entries left by a previous run.
   * `numbered`: if `file` is held by another live process, try `<name>.2.jsonl`, `.3`, … instead.
   */
  static async open(file: string | false, options: { numbered?: boolean; compactMinLines?: number } = {}): Promise<{ spool: CallbackSpool; pending: SpoolEntry[] }> {
    const compactMinLines = options.compactMinLines ?? 1000;
    if (file === false) return { spool: new CallbackSpool(null, compactMinLines), pending: [] };
    mkdirSync(dirname(file), { recursive: true });
    const candidates = options.numbered ? [file, ...Array.from({ length: 31 }, (_, i) => file.replace(/(\.jsonl)?$/, `.${i + 2}$1`))] : [file];
    const chosen = candidates.find((f) => acquireLock(f));
    if (!chosen) {
      const holder = readLockPid(file);
      throw new Error(
        `callback spool ${file} is in use by process ${holder ?? '?'}; give each executor process its own spoolFile` +
          (options.numbered ? ` (and the ${candidates.length - 1} numbered alternatives are taken too)` : ''),
      );
    }
    const spool = new CallbackSpool(chosen, compactMinLines);
    try {
      spool.load();
      spool.rewrite();
      spool.fd = openSync(chosen, 'a');
    } catch (err) {
      releaseLock(chosen);
      throw err;
    }
    return { spool, pending: [...spool.live.values()].map((v) => v.entry) };
  }

  /** Undelivered callbacks. */
  get size(): number {
    return this.live.size;
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  /** Writes the entry; resolves once it is in the file (not fsynced). */
  add(entry: SpoolEntry): Promise<void> {
    const line = addLine(entry);
    this.live.set(entry.id, { entry, line });
    return this.write(line);
  }

  /** Marks the entry delivered. */
  remove(id: string): Promise<void> {
    if (!this.live.delete(id)) return Promise.resolve();
    return this.write(JSON.stringify({ op: 'done', id }) + '\n');
  }

  /** Flushes, compacts, closes the file (deleted when nothing is pending) and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.flushing) {
      clearImmediate(this.flushing);
      this.flush();
    }
    if (!this.file) return;
    if (this.fd !== null) closeQuietly(this.fd);
    this.fd = null;
    try {
      if (this.live.size === 0) rmSync(this.file, { force: true });
      else this.rewrite();
    } finally {
      releaseLock(this.file);
    }
  }

  private load(): void {
    if (!this.file) return;
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let rec: { op?: string; id?: string } & Partial<SpoolEntry>;
      try {
        rec = JSON.parse(raw);
      } catch {
        continue; // a torn line from a crash mid-write
      }
      if (rec.op === 'add' && typeof rec.id === 'string' && rec.callback && typeof rec.callback === 'object') {
        const entry: SpoolEntry = { id: rec.id, at: Number(rec.at) || 0, urls: Array.isArray(rec.urls) ? rec.urls.filter((u) => typeof u === 'string') : [], callback: rec.callback };
        this.live.set(rec.id, { entry, line: addLine(entry) });
      } else if (rec.op === 'done' && typeof rec.id === 'string') {
        this.live.delete(rec.id);
      }
    }
  }

  /** Rewrites the file with the live entries only (synchronous; used at open/close/compaction). */
  private rewrite(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, [...this.live.values()].map((v) => v.line).join(''));
    renameSync(tmp, this.file);
    this.fileLines = this.live.size;
  }

  private write(line: string): Promise<void> {
    if (!this.file) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('callback spool is closed'));
    return new Promise((resolve, reject) => {
      this.buffer.push(line);
      this.waiters.push({ resolve, reject });
      this.flushing ??= setImmediate(() => this.flush());
    });
  }

  /** Appends the buffered lines, then compacts the file when dead lines outnumber live ones. */
  private flush(): void {
    this.flushing = null;
    const lines = this.buffer.splice(0);
    const waiters = this.waiters.splice(0);
    try {
      this.fd ??= openSync(this.file!, 'a');
      appendFileSync(this.fd, lines.join(''));
      this.fileLines += lines.length;
      waiters.forEach((w) => w.resolve());
    } catch (err) {
      waiters.forEach((w) => w.reject(err as Error));
    }
    if (this.closed || this.fileLines < this.compactMinLines || this.fileLines <= 2 * this.live.size) return;
    if (this.fd !== null) closeQuietly(this.fd);
    this.fd = null; // the next flush opens the file again, compacted or not
    try {
      this.rewrite();
    } catch {
      // keep appending to the uncompacted file
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing left to lose: every line was written (or its write already failed)
  }
}

/** `{"op":"add",…}` and a newline, with the callback's JSON as it is sent. */
function addLine(entry: SpoolEntry): string {
  return `{"op":"add","id":${JSON.stringify(entry.id)},"at":${JSON.stringify(entry.at)},"urls":${JSON.stringify(entry.urls)},"callback":${callbackJson(entry.callback)}}\n`;
}

/** Spool files locked by runtimes of this process. */
const heldHere = new Set<string>();

function readLockPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(`${file}.lock`, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acquireLock(file: string): boolean {
  if (heldHere.has(file)) return false;
  const lock = `${file}.lock`;
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const pid = readLockPid(file);
    // Held by another live process: taken. A dead owner (or this very process, which does not
    // hold it any more) left a stale lock: take it over.
    if (pid !== null && pid !== process.pid && isAlive(pid)) return false;
    writeFileSync(lock, String(process.pid));
  }
  heldHere.add(file);
  return true;
}

function releaseLock(file: string): void {
  heldHere.delete(file);
  if (readLockPid(file) === process.pid) rmSync(`${file}.lock`, { force: true });
}
