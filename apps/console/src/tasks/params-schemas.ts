import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { RE2JS } from 're2js';
import type { FieldError } from '@baton/domain';

/** One params check: a handler's schema (its JSON text) and, unless only whether it compiles is asked, the params. */
export type SchemaJob = { schema: string; params: unknown } | { schema: string };

/** What a job found: the params' problems ([] when they fit, or when only compiling was asked), or why the schema cannot be used. */
export type SchemaVerdict = { errors: FieldError[] } | { unusable: string };

/** The stage a job is in, for the watchdog that bounds each (ParamsCheckThread). */
export const STAGE = { idle: 0, compiling: 1, checking: 2 } as const;
export type Stage = (typeof STAGE)[keyof typeof STAGE];

/** At most this many problems per task: a schema of nested anyOf can report hundreds of thousands (31 MB) for one value. */
export const MAX_ERRORS_PER_TASK = 20;

/** Longest field path and reason kept, in characters: an enum of thousands of values is one reason. */
export const MAX_TEXT = 200;

/** Compiled schemas kept, by their JSON text: executors send the same few with every heartbeat. */
const CACHE_LIMIT = 500;

/**
 * The handlers' schemas, compiled on first use and kept by text, and the params checked against
 * them — the part of ParamsCheck that runs in its worker thread (params-check.worker.ts), under
 * the watchdog of ParamsCheckThread. Nothing here bounds time: that is the watchdog's.
 *
 * Draft-07 by default (what most generators write), draft 2020-12 when the schema's `$schema`
 * says so. Not strict: keywords Ajv does not know (`description` aside) are ignored, as a
 * draft-07 validator must, and so is `format` (an annotation unless a validator opts in; Ajv's
 * formats are a package of their own, not shipped). `pattern` and `patternProperties` run on
 * RE2 (linearRegExp), never on the backtracking RegExp.
 */
export class ParamsSchemas {
  private readonly compiled = new Map<string, { validate: ValidateFunction } | { unusable: string }>();

  /** The job's verdict; `stage` is told when compiling and checking start, so a watchdog can time each. */
  run(job: SchemaJob, stage: (stage: Stage) => void = () => undefined): SchemaVerdict {
    let compiled = this.compiled.get(job.schema);
    if (!compiled) {
      stage(STAGE.compiling);
      compiled = compile(job.schema);
      if (this.compiled.size >= CACHE_LIMIT) this.compiled.clear();
      this.compiled.set(job.schema, compiled);
    }
    if ('unusable' in compiled) return compiled;
    if (!('params' in job)) return { errors: [] };
    stage(STAGE.checking);
    if (compiled.validate(job.params)) return { errors: [] };
    return { errors: boundedErrors(compiled.validate.errors ?? []) };
  }
}

/** Every error, not the first; lenient (see ParamsSchemas); silent: Ajv would print each ignored format to stderr, outside the structured logs. */
const AJV_OPTIONS = { allErrors: true, strict: false, logger: false, code: { regExp: linearRegExp } } as const;

function compile(text: string): { validate: ValidateFunction } | { unusable: string } {
  try {
    const schema = JSON.parse(text) as Record<string, unknown>;
    const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
    // One Ajv per schema: an Ajv keeps every schema it compiled, by its $id's, so a shared one
    // would let one tenant's schema answer another's $ref (or refuse it for a clashing $id), and
    // would grow for as long as the console runs. 5–10 ms and ~20 KB each, once per schema text.
    const ajv = is2020 ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
    return { validate: ajv.compile(schema) };
  } catch (err) {
    return { unusable: (err as Error).message };
  }
}

/**
 * Ajv's `code.regExp`: a schema's pattern compiled by RE2JS, whose matching time is linear in the
 * input — `^(a+)+$` against 28 a's and a "!" took 1.2 s on V8's backtracking RegExp, doubling per
 * character. What RE2 cannot do in linear time (backreferences, lookaround) it refuses: the
 * schema is then unusable, and the warning says which pattern and why.
 */
export function linearRegExp(pattern: string): RE2JS {
  try {
    return RE2JS.compile(re2Spelling(pattern));
  } catch (err) {
    throw new Error(`pattern ${JSON.stringify(pattern)} is not supported: patterns run on RE2, in linear time, which has no backreferences or lookaround (${(err as Error).message})`);
  }
}
// Ajv names the engine in standalone code only, which the console never generates.
linearRegExp.code = 're2js';

/**
 * A JSON Schema pattern (ECMA-262) as RE2 spells it: RE2 reads JavaScript's syntax alike except
 * the code-point escapes `\uXXXX` and `\u{X…}`, which it writes `\x{X…}` (a surrogate pair
 * escaped as two \u's is one code point). An escaped backslash (`\\u0041`) is left as it is.
 */
export function re2Spelling(pattern: string): string {
  return pattern.replace(/\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]{1,6})\}|[^])/g, (escape, high?: string, low?: string, four?: string, braced?: string) => {
    if (high && low) return `\\x{${((parseInt(high, 16) - 0xd800) * 0x400 + (parseInt(low, 16) - 0xdc00) + 0x10000).toString(16)}}`;
    const hex = four ?? braced;
    return hex ? `\\x{${hex}}` : escape;
  });
}

/**
 * Ajv's errors as the API's field errors, each once and at most MAX_ERRORS_PER_TASK, each text at
 * most MAX_TEXT: nested anyOf reports the same failure once per path through it.
 */
export function boundedErrors(errors: readonly ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  const kept: FieldError[] = [];
  let more = 0;
  for (const error of errors) {
    const { field, reason } = fieldErrorOf(error);
    const key = `${field}\n${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (kept.length < MAX_ERRORS_PER_TASK) kept.push({ field: clipped(field), reason: clipped(reason) });
    else more++;
  }
  if (more > 0) kept[MAX_ERRORS_PER_TASK - 1] = { field: 'params', reason: `and ${more + 1} more problems, not listed` };
  return kept;
}

function clipped(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

/** An Ajv error as the API's field error: the path into params (`params.size.width`, `params.tags[2]`) and the reason. */
function fieldErrorOf(error: ErrorObject): FieldError {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') return { field: fieldOf([...path, String(error.params.missingProperty)]), reason: "is required by the handler's params schema" };
  if (error.keyword === 'additionalProperties') return { field: fieldOf([...path, String(error.params.additionalProperty)]), reason: "is not a param the handler's schema allows" };
  const allowed = error.keyword === 'enum' ? `: ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` : '';
  return { field: fieldOf(path), reason: `${error.message ?? 'does not match the schema'}${allowed}` };
}

function fieldOf(path: readonly string[]): string {
  return path.reduce((field, part) => (/^\d+$/.test(part) ? `${field}[${part}]` : `${field}.${part}`), 'params');
}
