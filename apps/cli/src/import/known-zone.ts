import { canonicalTimeZone } from '@baton/domain';

// Checking a zone builds an Intl formatter (about a millisecond): a source's few zones are checked once each.
const zones = new Map<string, string | null>();

/** The zone's canonical IANA spelling, or null when Baton does not know it. */
export function knownZone(zone: string): string | null {
  if (!zones.has(zone)) zones.set(zone, canonicalTimeZone(zone));
  return zones.get(zone)!;
}
