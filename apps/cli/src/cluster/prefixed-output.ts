import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { prettyFactory } from 'pino-pretty';

const COLOURS = [36, 33, 35, 32, 34, 91, 96, 93];

/**
 * Where `baton cluster` writes: every line of a child prefixed with its name (`[engine-1] …`),
 * the prefixes coloured and the children's JSON log lines pretty-printed on a terminal only (a
 * file or a pipe gets the JSON lines as they are, for log collectors and tests).
 */
export class PrefixedOutput {
  private readonly pretty?: (line: string) => string;
  private readonly colours = new Map<string, number>();
  private readonly width: number;

  constructor(
    names: readonly string[],
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly tty = Boolean(out.isTTY),
  ) {
    this.width = Math.max(...names.map((name) => name.length)) + 3;
    names.forEach((name, i) => this.colours.set(name, COLOURS[i % COLOURS.length]));
    if (this.tty) {
      // The same rendering as a Baton process on a terminal (libs/logging), minus the fields the prefix says.
      const render = prettyFactory({
        colorize: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,process,nodeId,context',
        messageFormat: '{if context}{context}: {end}{msg}',
      });
      this.pretty = (line) => (line.startsWith('{') ? safely(() => render(line).trimEnd(), line) : line);
    }
  }

  /** Writes `line` under `name`'s prefix. */
  line(name: string, line: string): void {
    const prefix = `[${name}]`.padEnd(this.width);
    const text = this.pretty ? this.pretty(line) : line;
    this.out.write(this.tty ? `\x1b[${this.colours.get(name) ?? 37}m${prefix}\x1b[0m${text}\n` : `${prefix}${text}\n`);
  }

  /** Prefixes every line of `stream`; `onLine` sees each line first (readiness markers). */
  follow(name: string, stream: Readable, onLine?: (line: string) => void): void {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      onLine?.(line);
      this.line(name, line);
    });
  }
}

function safely(render: () => string, fallback: string): string {
  try {
    return render();
  } catch {
    return fallback;
  }
}
