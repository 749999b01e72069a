// The one file, not the index: the executor SDK's package compiles messaging with @baton/domain mapped to its types alone.
import { redactUrlPasswords } from '@baton/domain/redaction/redact-url';

/** One STOMP broker of a failover list. */
export interface BrokerAddress {
  host: string;
  port: number;
  /** TLS (`stomp+ssl://`, `ssl://`). */
  ssl: boolean;
  login?: string;
  passcode?: string;
}

export const DEFAULT_STOMP_PORT = 61613;

const SCHEMES: Record<string, boolean> = { 'stomp:': false, 'tcp:': false, 'stomp+ssl:': true, 'stomp+tls:': true, 'ssl:': true };

/**
 * Parses `BATON_BROKER_URL`: one broker or a failover list, tried in order.
 *
 *   stomp://127.0.0.1:61613
 *   stomp://user:secret@mq-1:61613,stomp://user:secret@mq-2:61613
 *   failover:(stomp://mq-1:61613,stomp://mq-2:61613)        (ActiveMQ's notation; options after `?` are ignored)
 *
 * Schemes: `stomp://` (or `tcp://`), `stomp+ssl://` (or `ssl://`). Port 61613 when omitted.
 * Credentials (URL-encoded) become the STOMP `login` / `passcode` headers.
 */
export function parseBrokerUrl(url: string): BrokerAddress[] {
  let list = url.trim();
  if (!list) throw new Error('broker URL is empty');
  const failover = /^failover:\((.*)\)(\?.*)?$/i.exec(list);
  if (failover) list = failover[1];
  const parts = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error(`broker URL "${redactUrlPasswords(url)}" names no broker`);
  return parts.map((part) => parseOne(part));
}

function parseOne(part: string): BrokerAddress {
  let parsed: URL;
  try {
    parsed = new URL(part);
  } catch {
    throw new Error(`broker URL "${redactUrlPasswords(part)}" is not a URL (expected stomp://host:port)`);
  }
  const ssl = SCHEMES[parsed.protocol];
  if (ssl === undefined) throw new Error(`broker URL "${redactUrlPasswords(part)}": scheme must be stomp://, stomp+ssl://, tcp:// or ssl://`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error(`broker URL "${redactUrlPasswords(part)}" has no host`);
  const port = parsed.port ? Number(parsed.port) : DEFAULT_STOMP_PORT;
  const address: BrokerAddress = { host, port, ssl };
  if (parsed.username) address.login = decodeURIComponent(parsed.username);
  if (parsed.password) address.passcode = decodeURIComponent(parsed.password);
  return address;
}

/** `stomp://host:port` of one address (no credentials). */
export function describeBroker(address: BrokerAddress): string {
  return `${address.ssl ? 'stomp+ssl' : 'stomp'}://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}
