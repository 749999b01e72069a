/**
 * A heartbeat's `handlerSchemas` for these handler names whose whole serialised size (what
 * engines store, and what MAX_HANDLER_SCHEMAS_BYTES bounds) is exactly `bytes` UTF-8 bytes: the
 * bytes left over by `{"name":{"type":"object","description":""},…}` are shared out among the
 * descriptions.
 */
export function handlerSchemasOfSize(names: readonly string[], bytes: number): Record<string, { type: 'object'; description: string }> {
  const schemas = Object.fromEntries(names.map((name) => [name, { type: 'object' as const, description: '' }]));
  const missing = bytes - Buffer.byteLength(JSON.stringify(schemas));
  if (missing < 0) throw new Error(`handlerSchemasOfSize: ${names.length} handlers take ${bytes - missing} bytes already`);
  names.forEach((name, i) => (schemas[name].description = 'x'.repeat(Math.floor(missing / names.length) + (i === names.length - 1 ? missing % names.length : 0))));
  return schemas;
}
