import { METADATA_HOSTS, networkRules, ruleNamesHost, type ExecutorNetworks } from './executor-networks';
import { inRange, parseAddress, specialRangeOf } from './address-ranges';

/**
 * Whom Baton calls: a tenant's executors (engine dispatches and aborts) or a tenant's webhooks
 * (alarm deliveries and the console's test button).
 */
export type OutboundPurpose = 'executor' | 'webhook';

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The one rule for every call Baton makes on a tenant's behalf, judged on the address a
 * connection is about to be made to (`host`: the URL's host, a name or that very address):
 *
 * 1. never-ranges (cloud metadata, link-local, this network, unspecified, broadcast, multicast,
 *    reserved) are refused, whatever the tenant's list says;
 * 2. an address in one of the tenant's ranges, or reached through a host name the list names, is
 *    allowed: the operator said the tenant's services live there;
 * 3. any other address inside a network (loopback, private, unique local, carrier-grade NAT, …)
 *    is refused — except for executors of a tenant without a list, which may be anywhere
 *    (executors usually live on private networks; a list confines them);
 * 4. a public address: webhooks may go there; executors too, unless the tenant has a list.
 *
 * The reason names the range and its CIDR; for a host name it does not say which address the
 * name resolved to (the console's resolver would otherwise answer a tenant's questions about
 * internal names).
 */
export function checkOutboundAddress(input: { host: string; address: string; networks: ExecutorNetworks; purpose: OutboundPurpose }): UrlVerdict {
  const { host, networks, purpose } = input;
  const address = parseAddress(input.address);
  if (!address) return { ok: false, reason: `${host} does not resolve to an IP address` };
  const literal = parseAddress(host) !== null;
  const subject = literal ? `${host} is in` : `${host} resolves to an address in`;
  const range = specialRangeOf(address);
  if (range?.never) return { ok: false, reason: `${subject} ${range.name} (${range.cidr}), which Baton never calls` };
  const rules = networkRules(networks);
  if (rules.some((r) => (r.kind === 'range' ? inRange(address, r.range) : !literal && ruleNamesHost(r, host)))) return { ok: true };
  const listed = rules.length > 0;
  if (purpose === 'executor' && !listed) return { ok: true };
  if (range) return { ok: false, reason: `${subject} ${range.name} (${range.cidr}), not allowed for this tenant` };
  if (purpose === 'webhook') return { ok: true };
  return { ok: false, reason: notListed(host, networks) };
}

/** checkOutboundAddress for one tenant and purpose, as the connection-side checks take it: the reason an address is refused, or null. */
export function outboundCheck(networks: ExecutorNetworks, purpose: OutboundPurpose): (host: string, address: string) => string | null {
  return (host, address) => {
    const verdict = checkOutboundAddress({ host, address, networks, purpose });
    return verdict.ok ? null : verdict.reason;
  };
}

/**
 * What can be judged of a URL before any DNS lookup: an IP literal host (a connection to it
 * makes no lookup, so this is its only check) by checkOutboundAddress, a metadata host name
 * refused, and — for executors of a tenant with a list — a host name the list must name
 * (registration and dispatch judge the executor's name, no lookup: a check that resolves would
 * answer differently from one engine to the next). Any other host name is judged on what it
 * resolves to, where the connection is made.
 */
export function checkOutboundUrl(url: string, networks: ExecutorNetworks, purpose: OutboundPurpose): UrlVerdict {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  host = host.replace(/\.$/, '');
  if (parseAddress(host)) return checkOutboundAddress({ host, address: host, networks, purpose });
  if (METADATA_HOSTS.has(host)) return { ok: false, reason: `${host} is a cloud metadata host name, which Baton never calls` };
  const rules = networkRules(networks);
  if (purpose === 'webhook' || rules.length === 0 || rules.some((r) => ruleNamesHost(r, host))) return { ok: true };
  return { ok: false, reason: notListed(host, networks) };
}

/** Whether an executor may be registered at, and sent work to, `url` under the tenant's networks. */
export function checkExecutorUrl(url: string, networks: ExecutorNetworks): UrlVerdict {
  return checkOutboundUrl(url, networks, 'executor');
}

function notListed(host: string, networks: ExecutorNetworks): string {
  return `${host} is not in the tenant's allowed executor networks (${(networks ?? []).join(', ')})`;
}
