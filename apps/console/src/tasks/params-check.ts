import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { FieldError } from '@baton/domain';
import { findLiveExecutors, type LiveExecutor } from '@baton/persistence';
import { badRequest } from '../common/api-error';
import { ParamsCheckWorkers } from './params-check-thread';
import type { SchemaJob } from './params-schemas';

/** A task as far as its params' check goes. */
export interface ParamsOf {
  executorApp: string;
  handler: string;
  params: unknown;
}

/**
 * A task's params against the JSON schema the UP executors of its app declare for its handler
 * (their heartbeats' handlerSchemas, kept in executors.handler_schemas), checked when the task
 * is saved. Which schema: that of the executor heard from last — during a rolling deploy the
 * newest version of the handler is the one the params must fit. No executor up, or none
 * declaring a schema: nothing to check (saving is allowed; HandlerCheck warns about a missing
 * executor). A schema Ajv cannot compile is not the task's fault: no check, and HandlerCheck
 * says why in the save's warnings.
 *
 * The schemas are a tenant's input, so checking against them is bounded (ParamsCheckWorkers): off
 * the event loop, in a worker whose check of a task's params is refused past 50 ms (a 400 naming
 * `params`: the schema is too costly to check), with patterns run in linear time and errors
 * bounded in number and length (ParamsSchemas).
 */
@Injectable()
export class ParamsCheck implements OnApplicationShutdown {
  private readonly workers = new ParamsCheckWorkers();

  /**
   * The problems of each task's params, in the order given ([] when they fit, or nothing says what
   * they should be). `live`: the UP executors of the tasks' apps as the caller read them
   * (findLiveExecutors); read here when not given.
   */
  async errors(em: EntityManager, tenantId: string, tasks: readonly ParamsOf[], live?: readonly LiveExecutor[]): Promise<FieldError[][]> {
    live ??= await findLiveExecutors(em, tenantId, tasks.map((t) => t.executorApp));
    const checked: number[] = [];
    const jobs: SchemaJob[] = [];
    const texts = new Map<unknown, string>();
    tasks.forEach((task, i) => {
      const schema = schemaIn(live, task.executorApp, task.handler, texts);
      if (schema === undefined) return;
      checked.push(i);
      jobs.push({ schema, params: task.params });
    });
    const problems = tasks.map((): FieldError[] => []);
    const verdicts = await this.workers.run(jobs, tenantId);
    verdicts.forEach((verdict, k) => {
      if ('errors' in verdict) problems[checked[k]] = verdict.errors;
      else if ('refused' in verdict) problems[checked[k]] = [{ field: 'params', reason: verdict.refused }];
    });
    return problems;
  }

  /**
   * 400 naming each param that does not fit the schema its handler's executors declare (errors);
   * nothing is saved. Called before a save's transaction, not in it: a check may take its deadline
   * (50 ms), a new schema's compile longer, and the transaction would hold a pooled connection —
   * on SQLite the one transaction of the process — meanwhile.
   */
  async assertFit(em: EntityManager, tenantId: string, definitions: readonly ParamsOf[], prefix: (i: number) => string = () => ''): Promise<void> {
    const problems = await this.errors(em, tenantId, definitions);
    const errors = problems.flatMap((list, i) => list.map((e) => ({ ...e, field: `${prefix(i)}${e.field}` })));
    if (errors.length) throw badRequest(errors);
  }

  /** For each task, why the schema its app's executors declare for its handler cannot be used, or null (none declared, it compiles, or the task is null: not asked). */
  async unusableIn(tenantId: string, live: readonly LiveExecutor[], tasks: ReadonlyArray<{ executorApp: string; handler: string } | null>): Promise<Array<string | null>> {
    const texts = new Map<unknown, string>();
    const schemas = tasks.map((task) => (task === null ? undefined : schemaIn(live, task.executorApp, task.handler, texts)));
    const declared = schemas.filter((schema): schema is string => schema !== undefined);
    const verdicts = await this.workers.run(declared.map((schema) => ({ schema })), tenantId);
    let k = 0;
    return schemas.map((schema) => {
      if (schema === undefined) return null;
      const verdict = verdicts[k++];
      return 'unusable' in verdict ? verdict.unusable : 'refused' in verdict ? verdict.refused : null;
    });
  }

  onApplicationShutdown(): Promise<void> {
    return this.workers.close();
  }
}

/**
 * The handler's schema as JSON text (what the worker's cache is keyed by), from the executor of
 * the app heard from last that declares one. `texts` keeps each schema's text for the call: the
 * tasks of a batch of 1,000 share a few schemas of up to 16 KB.
 */
function schemaIn(live: readonly LiveExecutor[], app: string, handler: string, texts: Map<unknown, string>): string | undefined {
  for (let i = live.length - 1; i >= 0; i--) {
    const schema = (live[i].handlerSchemas as Record<string, unknown> | null)?.[handler];
    if (live[i].app !== app || schema === undefined) continue;
    let text = texts.get(schema);
    if (text === undefined) texts.set(schema, (text = JSON.stringify(schema)));
    return text;
  }
  return undefined;
}
