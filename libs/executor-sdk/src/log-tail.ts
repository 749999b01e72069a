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
 * The last lines of a run's log, capped in lines and in bytes (UTF-8 bytes of the messages).
 * When older lines had to go, `lines()` starts with a marker line saying how many.
 */
export class LogTail {
  private buffer: LogLine[] = [];
  private head = 0;
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly limits: LogTailLimits) {}

  write(level: LogLevel, message: string, args: unknown[], at = Date.now()): LogLine {
    const text = truncateUtf8(args.length ? format(message, ...args) : String(message), this.limits.maxLineBytes);
    const line: LogLine = { at, level, message: text };
    this.buffer.push(line);
    this.bytes += Buffer.byteLength(text);
    while (this.size > this.limits.maxLines || (this.bytes > this.limits.maxBytes && this.size > 0)) {
      const gone = this.buffer[this.head++];
      this.bytes -= Buffer.byteLength(gone.message);
      this.dropped++;
    }
    if (this.head > 1024 && this.head > this.buffer.length / 2) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
    return line;
  }

  get size(): number {
    return this.buffer.length - this.head;
  }

  /** How many lines were dropped from the front. */
  get droppedLines(): number {
    return this.dropped;
  }

  lines(): LogLine[] {
    const kept = this.buffer.slice(this.head);
    if (!this.dropped) return kept;
    const marker: LogLine = {
      at: kept[0]?.at ?? Date.now(),
      level: 'warn',
      message:
        `[baton] log truncated: ${this.dropped} earlier line(s) dropped ` +
        `(the tail keeps the last ${this.limits.maxLines} lines / ${this.limits.maxBytes} bytes)`,
    };
    return [marker, ...kept];
  }
}
