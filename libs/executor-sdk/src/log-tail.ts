import { format } from 'node:util';
import type { LogLevel, LogLine } from '@baton/protocol';

export interface LogTailLimits {
  maxLines: number;
  maxBytes: number;
  maxLineBytes: number;
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes (never in the middle of a character). */
export function truncateUtf8(text: string, maxBytes: number, suffix = '… [truncated]'): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const room = Math.max(0, maxBytes - Buffer.byteLength(suffix));
  const cut = Buffer.from(text).subarray(0, room).toString('utf8').replace(/\uFFFD+$/, '');
  return cut + suffix;
}

/**
 * The lines of a run's log not yet handed to the engine, capped in lines and in bytes (UTF-8
 * bytes of the messages). Interim callbacks carry what is pending while the handler runs (the
 * live tail of the run-detail page) and the final callback the rest; once an engine has taken a
 * callback, `delivered(upTo)` forgets the lines it carried. When lines had to go before they
 * were sent, `lines()` starts with a marker line saying how many.
 *
 * Every line gets a sequence number; lines leave the buffer only from the front, so the lines
 * dropped unsent are exactly the sequence numbers between the last delivered one and the front.
 */
export class LogTail {
  private buffer: Array<LogLine & { seq: number }> = [];
  private head = 0;
  private bytes = 0;
  private nextSeq = 0;
  private deliveredUpTo = 0;

  constructor(private readonly limits: LogTailLimits) {}

  write(level: LogLevel, message: string, args: unknown[], at = Date.now()): LogLine {
    const text = truncateUtf8(args.length ? format(message, ...args) : String(message), this.limits.maxLineBytes);
    const line: LogLine = { at, level, message: text };
    this.buffer.push({ ...line, seq: this.nextSeq++ });
    this.bytes += Buffer.byteLength(text);
    while (this.size > this.limits.maxLines || (this.bytes > this.limits.maxBytes && this.size > 0)) this.dropFront();
    this.compact();
    return line;
  }

  get size(): number {
    return this.buffer.length - this.head;
  }

  /** The sequence number the next line will get: pass it to `delivered` once the lines read before it were taken. */
  get mark(): number {
    return this.nextSeq;
  }

  /** How many lines were dropped before they could be sent. */
  get droppedLines(): number {
    const front = this.size > 0 ? this.buffer[this.head].seq : this.nextSeq;
    return Math.max(0, front - this.deliveredUpTo);
  }

  /** The pending lines (with the drop marker first when some were lost). */
  lines(): LogLine[] {
    const kept = this.buffer.slice(this.head).map(({ at, level, message }) => ({ at, level, message }));
    const dropped = this.droppedLines;
    if (!dropped) return kept;
    const marker: LogLine = {
      at: kept[0]?.at ?? Date.now(),
      level: 'warn',
      message: `[baton] log truncated: ${dropped} earlier line(s) dropped ` + `(the tail keeps the last ${this.limits.maxLines} lines / ${this.limits.maxBytes} bytes)`,
    };
    return [marker, ...kept];
  }

  /** An engine took the lines read before `mark` was `upTo`: forget them. */
  delivered(upTo: number): void {
    if (upTo <= this.deliveredUpTo) return;
    this.deliveredUpTo = upTo;
    while (this.size > 0 && this.buffer[this.head].seq < upTo) this.dropFront();
    this.compact();
  }

  private dropFront(): void {
    const gone = this.buffer[this.head++];
    this.bytes -= Buffer.byteLength(gone.message);
  }

  private compact(): void {
    if (this.head > 1024 && this.head > this.buffer.length / 2) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
  }
}
