import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Reads a JSON-lines file that another process appends to (an executor's or a peer worker's
 * record file), a call at a time returning only the lines completed since the last call: a
 * benchmark polling tens of thousands of records reads each byte once.
 */
export class JsonlTail<T> {
  private offset = 0;
  private partial = '';

  constructor(readonly file: string) {}

  next(): T[] {
    if (!existsSync(this.file)) return [];
    const fd = openSync(this.file, 'r');
    let text = '';
    try {
      const size = fstatSync(fd).size;
      if (size <= this.offset) return [];
      const buf = Buffer.alloc(size - this.offset);
      const read = readSync(fd, buf, 0, buf.length, this.offset);
      this.offset += read;
      text = this.partial + buf.subarray(0, read).toString('utf8');
    } finally {
      closeSync(fd);
    }
    const lines = text.split('\n');
    this.partial = lines.pop() ?? ''; // a line still being written
    return lines.filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
  }
}
