import { Injectable } from '@nestjs/common';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { In, type EntityManager } from 'typeorm';
import type { FieldError } from '@baton/domain';
import { ExecutorEntity } from '@baton/persistence';

/** An UP executor as the checks read it (ParamsCheck.liveExecutors). */
export type LiveExecutor = Pick<ExecutorEntity, 'id' | 'app' | 'handlers' | 'handlerSchemas' | 'heartbeatAt'>;

/** A task as far as its params' check goes. */
export interface ParamsOf {
  executorApp: string;
  handler: string;
  params: unknown;
}

/** The schema a handler's params are checked against, compiled — or why it cannot be used. */
type Compiled = { validate: ValidateFunction } | { unusable: string };

/** Compiled schemas kept, by their JSON text: executors send the same few with every heartbeat. */
const CACHE_LIMIT = 500;

/** Every error, not the first; lenient (see ParamsCheck); silent: Ajv would print each ignored format to stderr, outside the structured logs. */
const AJV_OPTIONS = { allErrors: true, strict: false, logger: false } as const;

/**
 * A task's params against the JSON schema the UP executors of its app declare for its handler
 * (their heartbeats' handlerSchemas, kept in executors.handler_schemas), checked when the task
 * is saved. Which schema: that of the executor heard from last — during a rolling deploy the
 * newest version of the handler is the one the params must fit. No executor up, or none
 * declaring a schema: nothing to check (saving is allowed; HandlerCheck warns about a missing
 * executor). A schema Ajv cannot compile is not the task's fault: no check, and HandlerCheck
 * says why in the save's warnings.
 *
 * Draft-07 by default (what most generators write), draft 2020-12 when the schema's `$schema`
 * says so. Not strict: keywords Ajv does not know (`description` aside) are ignored, as a
 * draft-07 validator must, and so is `format` (an annotation unless a validator opts in; Ajv's
 * formats are a package of their own, not shipped).
 */
@Injectable()
export class ParamsCheck {
  private readonly compiled = new Map<string, Compiled>();

  /** The problems of each task's params, in the order given ([] when they fit, or nothing says what they should be). */
  async errors(em: EntityManager, tenantId: string, tasks: readonly ParamsOf[]): Promise<FieldError[][]> {
    const live = await this.liveExecutors(em, tenantId, tasks.map((t) => t.executorApp));
    return tasks.map((task) => {
      const compiled = this.compiledIn(live, task.executorApp, task.handler);
      if (!compiled || !('validate' in compiled) || compiled.validate(task.params)) return [];
      return (compiled.validate.errors ?? []).map(fieldErrorOf);
    });
  }

  /** Why the schema these executors declare for the handler cannot be used, or null (none declared, or it compiles). */
  unusableIn(live: readonly LiveExecutor[], task: { executorApp: string; handler: string }): string | null {
    const compiled = this.compiledIn(live, task.executorApp, task.handler);
    return compiled && 'unusable' in compiled ? compiled.unusable : null;
  }

  /** The tenant's UP executors of these apps, heard from last at the end: one read serves the check and HandlerCheck's warnings. */
  async liveExecutors(em: EntityManager, tenantId: string, apps: readonly string[]): Promise<LiveExecutor[]> {
    const unique = [...new Set(apps)];
    if (unique.length === 0) return [];
    return em.getRepository(ExecutorEntity).find({
      where: { tenantId, app: In(unique), state: 'UP' },
      select: { id: true, app: true, handlers: true, handlerSchemas: true, heartbeatAt: true },
      order: { heartbeatAt: 'ASC', id: 'ASC' },
    });
  }

  /** The compiled schema of the handler, from the executor of the app heard from last that declares one. */
  private compiledIn(live: readonly LiveExecutor[], app: string, handler: string): Compiled | undefined {
    for (let i = live.length - 1; i >= 0; i--) {
      const declared = live[i].handlerSchemas as Record<string, unknown> | null;
      if (live[i].app === app && declared?.[handler] !== undefined) return this.compile(declared[handler]);
    }
    return undefined;
  }

  private compile(schema: unknown): Compiled {
    const text = JSON.stringify(schema);
    let compiled = this.compiled.get(text);
    if (compiled) return compiled;
    try {
      const is2020 = typeof (schema as { $schema?: unknown }).$schema === 'string' && (schema as { $schema: string }).$schema.includes('2020-12');
      // One Ajv per schema: an Ajv keeps every schema it compiled, by its $id's, so a shared one
      // would let one tenant's schema answer another's $ref (or refuse it for a clashing $id), and
      // would grow for as long as the console runs. 5–10 ms and ~20 KB each, once per schema text.
      const ajv = is2020 ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
      compiled = { validate: ajv.compile(schema as object) };
    } catch (err) {
      compiled = { unusable: (err as Error).message };
    }
    if (this.compiled.size >= CACHE_LIMIT) this.compiled.clear();
    this.compiled.set(text, compiled);
    return compiled;
  }
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
