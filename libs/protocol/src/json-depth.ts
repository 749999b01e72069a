/**
 * Most levels of arrays and objects a JSON body sent to an engine may nest (32, the rule of a
 * run's params): deeper bodies are refused with 400 before validation, whose recursive walks
 * would otherwise overflow the stack on `{"a":{"a":…}}` × 10 000. No real payload comes near it.
 * The same number as @baton/domain's MAX_JSON_DEPTH (json-depth.spec.ts checks it), written here
 * because this package is packed with the executor SDK, without the domain.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Most levels a JSON body of the console's API may nest (512): the same guard against the stack,
 * refused whole (field `body`) before the validation pipe's recursive walks (class-transformer,
 * class-validator), but far enough past MAX_JSON_DEPTH that a body holding a named field nested
 * deeper than it (params, an event's payload) is answered naming that field — and in a batch,
 * that item alone. The walks were measured safe far beyond it.
 */
export const MAX_BODY_DEPTH = 512;

/** The reason a body nested deeper than `limit` is refused with (field `body`). */
export function jsonDepthReason(limit = MAX_JSON_DEPTH): string {
  return `JSON nested deeper than ${limit} levels`;
}

/**
 * True when a parsed JSON value nests arrays/objects more than `limit` levels (the top-level
 * object is level 1). Iterative, so the check itself cannot overflow the stack, and it stops
 * at the first value past the limit.
 */
export function jsonDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth > limit) return true;
    for (const child of Object.values(item.value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: item.depth + 1 });
    }
  }
  return false;
}
