import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  PATHS,
  SIGNATURE_HEADERS,
  sign,
  type AbortAck,
  type AbortRequest,
  type CallbackConflict,
  type DispatchAck,
  type DispatchRefusal,
  type DispatchRequest,
  type ExecutorHeartbeat,
  type ErrorBody,
  type ExecutorHeartbeatAck,
  type RunCallback,
  type RunStatusReport,
  type SignatureRefusal,
} from '@baton/protocol';

/**
 * Keeps libs/protocol/openapi.yaml honest: every message interface of messages.ts and
 * error-body.ts (and the SDK's ExecutorHealth) has a schema with the same properties, the same required ones and the
 * same literal values; sample messages validate; the routes, headers, status codes and the
 * worked signature example match the code.
 */
const ROOT = resolve(__dirname, '../..');
type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const doc = parseYaml(readFileSync(resolve(ROOT, 'libs/protocol/openapi.yaml'), 'utf8')) as any;
const schemas = doc.components.schemas as Record<string, Schema>;

function deref(s: Schema): Schema {
  let cur = s;
  while (cur.$ref) {
    const name = cur.$ref.replace('#/components/schemas/', '');
    if (!schemas[name]) throw new Error(`dangling $ref ${cur.$ref}`);
    cur = schemas[name];
  }
  return cur;
}

// ---- the TypeScript side, read with the compiler API ----------------------------------------

interface TsProp {
  name: string;
  optional: boolean;
  type: ts.TypeNode;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(resolve(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
}
const protocolSources = [parse('libs/protocol/src/messages.ts'), parse('libs/protocol/src/error-body.ts')];
const sources = [...protocolSources, parse('libs/executor-sdk/src/runtime-types.ts')];
const interfaces = new Map<string, TsProp[]>();
const aliases = new Map<string, ts.TypeNode>();
for (const sf of sources) {
  sf.forEachChild((node) => {
    const exported = (ts.getModifiers(node as ts.HasModifiers) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) return;
    if (ts.isInterfaceDeclaration(node)) {
      interfaces.set(
        node.name.text,
        node.members.filter(ts.isPropertySignature).map((m) => ({ name: (m.name as ts.Identifier).text, optional: !!m.questionToken, type: m.type! })),
      );
    } else if (ts.isTypeAliasDeclaration(node)) {
      aliases.set(node.name.text, node.type);
    }
  });
}
const messageInterfaces = [...interfaces.keys()].filter((n) => protocolSources.some((sf) => sf.statements.some((s) => ts.isInterfaceDeclaration(s) && s.name.text === n)));

/** The string literals of a type (a union of literals, possibly via aliases), or null if it is not one. */
function literals(type: ts.TypeNode): string[] | null {
  if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return [type.literal.text];
  if (ts.isUnionTypeNode(type)) {
    const parts = type.types.map(literals);
    return parts.every(Boolean) ? (parts as string[][]).flat() : null;
  }
  if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && aliases.has(type.typeName.text)) return literals(aliases.get(type.typeName.text)!);
  if (ts.isParenthesizedTypeNode(type)) return literals(type.type);
  return null;
}

/** A coarse kind of a TS type, to compare with the schema's `type`. */
function kind(type: ts.TypeNode): string {
  if (literals(type)) return 'string';
  switch (type.kind) {
    case ts.SyntaxKind.NumberKeyword:
      return 'number';
    case ts.SyntaxKind.StringKeyword:
      return 'string';
    case ts.SyntaxKind.BooleanKeyword:
      return 'boolean';
    case ts.SyntaxKind.TrueKeyword:
    case ts.SyntaxKind.FalseKeyword:
      return 'boolean';
    case ts.SyntaxKind.ArrayType:
      return 'array';
  }
  if (ts.isLiteralTypeNode(type) && (type.literal.kind === ts.SyntaxKind.TrueKeyword || type.literal.kind === ts.SyntaxKind.FalseKeyword)) return 'boolean';
  if (ts.isTypeReferenceNode(type)) {
    const name = type.typeName.getText();
    if (name === 'JsonValue') return 'any';
    if (interfaces.has(name)) return `ref:${name}`;
    return 'other';
  }
  return 'other';
}

function schemaKind(s: Schema): string {
  if (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    if (name === 'JsonValue') return 'any';
    const target = deref(s);
    return target.type === 'object' ? `ref:${name}` : String(target.type);
  }
  if (s.type === 'integer') return 'number';
  return String(s.type);
}

// ---- a small JSON Schema checker (the subset this document uses) ----------------------------

/** A schema with its `allOf` parts folded in (properties and required ones added up). */
function flatten(schema: Schema): Schema {
  const s = schema.$ref ? deref(schema) : schema;
  if (!s.allOf) return s;
  const parts = [...s.allOf.map(flatten), s];
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
    required: parts.flatMap((p) => p.required ?? []),
  };
}

function validate(schema: Schema, value: unknown, path = '$', errors: string[] = []): string[] {
  const s = flatten(schema);
  if (Object.keys(s).every((k) => k === 'description')) return errors; // any JSON value
  if ('const' in s && value !== s.const) errors.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (s.enum && !s.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(s.enum)}`);
  const t = s.type;
  if (t === 'integer' && !Number.isInteger(value)) errors.push(`${path}: not an integer`);
  if (t === 'number' && typeof value !== 'number') errors.push(`${path}: not a number`);
  if (t === 'string' && typeof value !== 'string') errors.push(`${path}: not a string`);
  if (t === 'boolean' && typeof value !== 'boolean') errors.push(`${path}: not a boolean`);
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${path}: < ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${path}: > ${s.maximum}`);
  }
  if (typeof value === 'string') {
    if (s.minLength !== undefined && value.length < s.minLength) errors.push(`${path}: shorter than ${s.minLength}`);
    if (s.pattern && !new RegExp(s.pattern).test(value)) errors.push(`${path}: does not match ${s.pattern}`);
  }
  if (t === 'array') {
    if (!Array.isArray(value)) errors.push(`${path}: not an array`);
    else value.forEach((v, i) => validate(s.items ?? {}, v, `${path}[${i}]`, errors));
  }
  if (t === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) errors.push(`${path}: not an object`);
    else {
      const obj = value as Record<string, unknown>;
      for (const r of s.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
      for (const [k, v] of Object.entries(obj)) {
        // Strict here (the document lets receivers ignore unknown fields): a field the schema
        // does not know means the document drifted from the code.
        if (!s.properties?.[k]) errors.push(`${path}.${k}: not in the schema`);
        else validate(s.properties[k], v, `${path}.${k}`, errors);
      }
    }
  }
  return errors;
}

// ---- samples, typed by the TypeScript interfaces ---------------------------------------------

const dispatch: DispatchRequest = { runId: 42, attempt: 1, tenantId: 'acme', taskId: 7, taskName: 'nightly-report', handler: 'report', params: { day: '2024-11-22' }, scheduledAt: 1732240000000, deadline: 1732240060000, callbackUrls: ['http://engine-1:8090'] };
const ack: DispatchAck = { accepted: true, runId: 42, attempt: 1 };
const refusal: DispatchRefusal = { accepted: false, reason: 'BAD_REQUEST', message: 'runId: is required', field: 'runId' };
const abort: AbortRequest = { runId: 42, attempt: 1, reason: 'TIMEOUT' };
const abortAck: AbortAck = { aborted: true, runId: 42, attempt: 1, state: 'RUNNING' };
const status: RunStatusReport = { runId: 42, attempts: [{ attempt: 1, state: 'FINISHED', outcome: 'ABORTED', startedAt: 1, finishedAt: 2, callbackPending: true }, { attempt: 2, state: 'QUEUED' }] };
const finalCallback: RunCallback = {
  runId: 42,
  attempt: 1,
  tenantId: 'acme',
  executorId: 3,
  outcome: 'ABORTED',
  result: null,
  error: 'aborted by the engine: the run timed out',
  startedAt: 1732240000100,
  finishedAt: 1732240060000,
  progress: 55.5,
  logs: [{ at: 1732240000200, level: 'warn', message: 'slow' }],
  alarms: [{ severity: 'CRITICAL', message: 'ledger mismatch', data: { diff: 3 }, at: 1732240000300 }],
  abortReason: 'TIMEOUT',
};
const interim: RunCallback = { runId: 42, attempt: 1, tenantId: 'acme', progress: 10 };
const heartbeat: ExecutorHeartbeat = { tenantId: 'acme', app: 'billing', url: 'http://10.0.0.5:8100', capacity: 4, inFlight: 2, handlers: ['report'], protocolVersion: 1, startedAt: 1, queued: 1, queueLimit: 100, active: [{ runId: 42, attempt: 1 }], spooled: 0, draining: false };
const heartbeatAck: ExecutorHeartbeatAck = { executorId: 3, intervalMs: 3000 };
const malformed: ErrorBody = { statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: 'runId: a positive integer', errors: [{ field: 'runId', reason: 'a positive integer' }] };
const refused: SignatureRefusal = { statusCode: 401, code: 'BAD_SIGNATURE', error: 'Unauthorized', message: 'signature already used', reason: 'REPLAYED' };
const stale: CallbackConflict = { statusCode: 409, code: 'CONFLICT', error: 'Conflict', message: 'attempt 1 of run 42 is not executing (run is SUCCEEDED): nothing changed', accepted: false, runId: 42, attempt: 1, reason: 'STALE', state: 'SUCCEEDED' };

describe('libs/protocol/openapi.yaml', () => {
  it('is an OpenAPI 3.1 document whose $refs all resolve', () => {
    expect(doc.openapi).toBe('3.1.0');
    const refs = JSON.stringify(doc).match(/"#\/components\/[^"]+"/g) ?? [];
    for (const ref of refs) {
      const [, section, name] = JSON.parse(ref).split('/').slice(1);
      expect(doc.components[section]?.[name], ref).toBeDefined();
    }
  });

  it('has a schema for every message interface, with the same properties, required ones and literal values', () => {
    expect(messageInterfaces).toEqual(
      expect.arrayContaining(['DispatchRequest', 'DispatchAck', 'DispatchRefusal', 'AbortRequest', 'AbortAck', 'RunStatusReport', 'RunCallback', 'ExecutorHeartbeat', 'ExecutorHeartbeatAck', 'LogLine', 'BusinessAlarm', 'RunKey', 'ExecutorAttemptStatus', 'ErrorBody', 'FieldError', 'SignatureRefusal', 'CallbackConflict', 'TenantAdmissionRefusal']),
    );
    const checked = [...messageInterfaces, 'ExecutorHealth'];
    for (const name of checked) {
      const props = interfaces.get(name)!;
      const schema = schemas[name];
      expect(schema, `components.schemas.${name}`).toBeDefined();
      expect(Object.keys(schema.properties ?? {}).sort(), `${name}: properties`).toEqual(props.map((p) => p.name).sort());
      expect([...(schema.required ?? [])].sort(), `${name}: required`).toEqual(props.filter((p) => !p.optional).map((p) => p.name).sort());
      for (const p of props) {
        const ps = schema.properties![p.name];
        const tsKind = kind(p.type);
        if (tsKind !== 'other') expect(schemaKind(ps), `${name}.${p.name}: type`).toBe(tsKind);
        const lits = literals(p.type);
        if (lits) expect([...(deref(ps).enum ?? [deref(ps).const])].sort(), `${name}.${p.name}: values`).toEqual([...lits].sort());
        if (ts.isLiteralTypeNode(p.type) && (p.type.literal.kind === ts.SyntaxKind.TrueKeyword || p.type.literal.kind === ts.SyntaxKind.FalseKeyword)) {
          expect(ps.const, `${name}.${p.name}: const`).toBe(p.type.literal.kind === ts.SyntaxKind.TrueKeyword);
        }
      }
    }
    expect(schemas.ErrorCode.enum).toEqual([...ERROR_CODES]);
    for (const alias of ['AbortRequestReason', 'AbortReason', 'ExecutorRunState', 'LogLevel', 'SignatureRefusalReason']) {
      expect([...(schemas[alias].enum ?? [])].sort(), alias).toEqual([...literals(aliases.get(alias)!)!].sort());
    }
  });

  it('validates sample messages of every kind (and catches a wrong one)', () => {
    const samples: Array<[string, unknown]> = [
      ['DispatchRequest', dispatch],
      ['DispatchAck', ack],
      ['DispatchRefusal', refusal],
      ['AbortRequest', abort],
      ['AbortAck', abortAck],
      ['RunStatusReport', status],
      ['RunCallback', finalCallback],
      ['RunCallback', interim],
      ['CallbackBatch', { callbacks: [finalCallback, interim] }],
      ['CallbackBatchReply', { results: [{ runId: 42, attempt: 1, status: 200, body: { accepted: true } }, { runId: 43, attempt: 2, status: 409, body: { message: 'stale' } }] }],
      ['ExecutorHeartbeat', heartbeat],
      ['ExecutorHeartbeatAck', heartbeatAck],
      ['ErrorBody', malformed],
      ['SignatureRefusal', refused],
      ['CallbackConflict', stale],
      ['CallbackBatchReply', { results: [{ runId: 42, attempt: 1, status: 409, body: stale }, { runId: 43, attempt: 1, status: 400, body: malformed }] }],
    ];
    for (const [name, sample] of samples) expect(validate(schemas[name], sample), name).toEqual([]);
    expect(validate(schemas.DispatchRequest, JSON.parse(JSON.stringify({ ...dispatch, runId: 1.5, handler: undefined, extra: 1 })))).toEqual([
      '$.handler: required',
      '$.runId: not an integer',
      '$.extra: not in the schema',
    ]);
    expect(validate(schemas.RunCallback, { ...interim, outcome: 'DONE' })).toEqual(['$.outcome: "DONE" not in ["SUCCEEDED","FAILED","ABORTED"]']);
    expect(validate(schemas.SignatureRefusal, JSON.parse(JSON.stringify({ ...refused, code: 'NOPE', reason: undefined, field: 'x' })))).toEqual([
      '$.reason: required',
      '$.code: "NOPE" not in ' + JSON.stringify(schemas.ErrorCode.enum),
      '$.field: not in the schema',
    ]);
  });

  it('documents the routes, methods and status codes the code uses', () => {
    const ops: Record<string, Record<string, string[]>> = {};
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>)) {
      for (const [method, op] of Object.entries(item)) if (op.responses) (ops[path] ??= {})[method] = Object.keys(op.responses).sort();
    }
    expect(ops).toEqual({
      [PATHS.dispatch]: { post: ['202', '400', '401', '404', '413', '429', '503'] },
      [PATHS.abort(0).replace('0', '{runId}')]: { post: ['202', '400', '401', '404'] },
      [PATHS.status(0).replace('0', '{runId}')]: { get: ['200', '401'] },
      '/baton/health': { get: ['200'] },
      [PATHS.callback]: { post: ['200', '400', '401', '409', '413', '422', '429', '503'] },
      [PATHS.callbackBatch]: { post: ['200', '400', '401', '404', '429', '503'] },
      [PATHS.dispatchBatch]: { post: ['200', '400', '401', '404', '413'] },
      [PATHS.heartbeat]: { post: ['200', '401', '403', '429', '503'] },
      [PATHS.wake]: { post: ['204', '400', '401', '429'] },
      [PATHS.cancelled]: { post: ['204', '400', '401', '429'] },
      '/xxl-job-admin/{tenant}/api/{uri}': { post: ['200', '429'] },
    });
    const headerParams = ['Tenant', 'Timestamp', 'Signature'].map((p) => doc.components.parameters[p].name);
    expect(headerParams).toEqual([SIGNATURE_HEADERS.tenant, SIGNATURE_HEADERS.timestamp, SIGNATURE_HEADERS.signature]);
  });

  it("its worked signature example is what signing.ts computes", () => {
    const description: string = doc.info.description;
    const body = '{"runId":42,"attempt":1,"reason":"TIMEOUT"}';
    expect(description).toContain(`body: ${body}`);
    const post = sign('s3cret', 'acme', 'POST', '/baton/runs/42/abort', body, 1732240000000);
    const get = sign('s3cret', 'acme', 'GET', '/baton/runs/42', '', 1732240000000);
    expect(description).toContain(`signature     = ${post[SIGNATURE_HEADERS.signature]}`);
    expect(description).toContain(`signature     = ${get[SIGNATURE_HEADERS.signature]}`);
    expect(description).toMatch(/within \*\*300 000 ms\*\*/);
  });
});
