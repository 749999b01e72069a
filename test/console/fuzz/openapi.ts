/**
 * The console's routes as its OpenAPI document (`/api/docs-json`) describes them: method, path,
 * path and query parameters, and the request body's schema with every `$ref` and one-element
 * `allOf` resolved, so the fuzzer's generators walk plain schemas.
 */

/** The subset of JSON Schema (OpenAPI 3.0 flavour) that @nestjs/swagger writes for the console. */
export interface Schema {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  example?: unknown;
  default?: unknown;
  allOf?: Schema[];
  /** Any one of these (a property that takes several JSON types). */
  oneOf?: Schema[];
  $ref?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As in the document: `/api/tasks/{id}`. */
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  /** The JSON body's schema, resolved; null when the route takes no body. */
  body: Schema | null;
}

export interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document, in its order. */
export function operationsOf(doc: Document): Operation[] {
  const resolve = (schema: Schema, seen: string[] = []): Schema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (seen.includes(name)) throw new Error(`recursive schema ${name}: the fuzzer's generators assume none`);
      return resolve(doc.components.schemas[name], [...seen, name]);
    }
    const { allOf, ...rest } = schema;
    const merged: Schema = allOf?.length === 1 ? { ...resolve(allOf[0], seen), ...rest } : rest;
    return {
      ...merged,
      ...(merged.properties ? { properties: Object.fromEntries(Object.entries(merged.properties).map(([k, v]) => [k, resolve(v, seen)])) } : {}),
      ...(merged.items ? { items: resolve(merged.items, seen) } : {}),
      ...(merged.oneOf ? { oneOf: merged.oneOf.map((s) => resolve(s, seen)) } : {}),
    };
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => ops[m]).map((m) => {
      const op = ops[m];
      const params = op.parameters ?? [];
      const json = op.requestBody?.content['application/json'];
      return {
        method: m.toUpperCase() as Operation['method'],
        path,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body: json ? resolve(json.schema) : null,
      };
    }),
  );
}

/** `POST /api/tasks/{id}/trigger`. */
export const routeKey = (op: Pick<Operation, 'method' | 'path'>): string => `${op.method} ${op.path}`;
