/**
 * Keys a JSON body of the console's API may not hold, at any depth: the console's validation
 * (class-transformer) drops them on the way in — its guard against prototype pollution — so a
 * payload or params holding one would be stored without it, and an event filter `{"__proto__": 1}`
 * would be saved as `{}`, matching every event. Refused with 400 naming the key's place instead.
 */
export const RESERVED_JSON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The reason a body holding a reserved key is refused with (its field: the key's place). */
export function reservedKeyReason(key: string): string {
  return `"${key}" is not accepted as a key (nor are ${[...RESERVED_JSON_KEYS].filter((k) => k !== key).map((k) => `"${k}"`).join(' and ')}): it would be dropped`;
}

/**
 * The first reserved key in a parsed JSON value and its place (`params.a.__proto__`,
 * `runs[2].params.constructor`), or null. Iterative, like jsonDeeperThan (which runs first).
 */
export function findReservedKey(value: unknown): { key: string; path: string } | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    if (Array.isArray(item.value)) {
      item.value.forEach((child, i) => stack.push({ value: child, path: `${item.path}[${i}]` }));
      continue;
    }
    for (const key of Object.keys(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      if (RESERVED_JSON_KEYS.has(key)) return { key, path };
      stack.push({ value: (item.value as Record<string, unknown>)[key], path });
    }
  }
  return null;
}
