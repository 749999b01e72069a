import ipaddr from 'ipaddr.js';
import { isWhollyNever, parseAddress, specialRangeOf, type Address } from './address-ranges';
import type { FieldError } from '../validation/field-error';

/**
 * A tenant's networks, as the operator sets them: where its executors may live, and which
 * private ranges its webhooks may reach — one list, one rule (libs/domain outbound-policy.ts).
 * Without a limit a tenant could point an engine's signed POSTs, or a webhook, at anything
 * Baton's hosts reach.
 *
 * Entries (case-insensitive, at most MAX_EXECUTOR_NETWORKS):
 * - `10.0.0.0/8`, `fd00::/8` — a CIDR range: the addresses in it;
 * - `10.1.2.3`, `::1` — one address (a /32 or /128);
 * - `exec.internal` — exactly that host name (whatever it resolves to, but never-ranges);
 * - `*.svc.cluster.local` — any host name below that domain (not the domain itself).
 *
 * Entries that only hold never-addresses (link-local, cloud metadata, …: address-ranges.ts) or
 * name a metadata host are refused: no list can allow those.
 * `null` (the default) or an empty list: executors anywhere but the never-ranges; webhooks to
 * public addresses only.
 */
export type ExecutorNetworks = readonly string[] | null;

/** Most entries a tenant's list may hold. */
export const MAX_EXECUTOR_NETWORKS = 100;

/** Longest entry: a DNS name's limit (253) plus `*.`. */
const MAX_ENTRY_LENGTH = 255;

/** Host names of cloud metadata services: no list may name them, no URL may use them. */
export const METADATA_HOSTS: ReadonlySet<string> = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);
const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** One parsed entry of a list. */
export type NetworkRule = { kind: 'range'; range: [Address, number] } | { kind: 'host'; host: string } | { kind: 'below'; domain: string };

/** Checks the list an operator sets; the errors name `field[i]` and say why. */
export function validateExecutorNetworks(value: unknown, field = 'executorNetworks'): FieldError[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return [{ field, reason: 'must be an array of networks and host names, or null' }];
  if (value.length > MAX_EXECUTOR_NETWORKS) return [{ field, reason: `must have at most ${MAX_EXECUTOR_NETWORKS} entries` }];
  const errors: FieldError[] = [];
  value.forEach((entry, i) => {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') errors.push({ field: `${field}[${i}]`, reason: parsed });
  });
  return errors;
}

/** The list as stored: trimmed, lower-cased, without repeats; null, or empty (which allows the same), is null. Call after validateExecutorNetworks. */
export function normalizeExecutorNetworks(value: readonly string[] | null): string[] | null {
  if (value === null || value.length === 0) return null;
  return [...new Set(value.map((e) => e.trim().toLowerCase()))];
}

/** The rules of a stored list (validated when it was saved). */
export function networkRules(networks: ExecutorNetworks): NetworkRule[] {
  return (networks ?? []).map(parseEntry).filter((r): r is NetworkRule => typeof r !== 'string');
}

/** Whether a host name rule names `host` (lower-case, no trailing dot). */
export function ruleNamesHost(rule: NetworkRule, host: string): boolean {
  if (rule.kind === 'host') return host === rule.host;
  if (rule.kind === 'below') return host.endsWith(`.${rule.domain}`);
  return false;
}

const NEVER_ENTRY = 'link-local, metadata and non-unicast addresses are always refused';

/** A rule, or why the entry is not one. */
function parseEntry(entry: unknown): NetworkRule | string {
  if (typeof entry !== 'string') return 'must be a string';
  const text = entry.trim().toLowerCase();
  if (text.length === 0 || text.length > MAX_ENTRY_LENGTH) return `must be 1 to ${MAX_ENTRY_LENGTH} characters`;
  if (text.includes('/')) {
    const [base, bits] = text.split('/', 2);
    if (parseAddress(base) === null || !/^\d{1,3}$/.test(bits) || !ipaddr.isValidCIDR(text)) return 'not a CIDR range (like 10.0.0.0/8 or fd00::/8)';
    const range = ipaddr.parseCIDR(text);
    if (isWhollyNever(range)) return NEVER_ENTRY;
    return { kind: 'range', range };
  }
  const address = parseAddress(text);
  if (address) {
    if (specialRangeOf(address)?.never) return NEVER_ENTRY;
    return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  const below = text.startsWith('*.');
  const name = below ? text.slice(2) : text;
  if (!name.split('.').every((label) => HOST_LABEL.test(label))) return 'not a CIDR range, an IP address, a host name or *.domain';
  if (METADATA_HOSTS.has(name)) return 'metadata host names are always refused';
  return below ? { kind: 'below', domain: name } : { kind: 'host', host: name };
}
