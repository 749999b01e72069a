import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Id of a process instance (engine node, console) when none is configured: `<hostname>-<pid>-<random>`. */
export function defaultNodeId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
