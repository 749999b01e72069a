import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { firstFireTime, taskDefaults, type DependencyCondition, type TaskDefinition, type Trigger } from '@baton/domain';
import { EngineGroupEntity, TaskDependencyEntity, TaskEntity, TenantEntity, taskDefinitionToColumns, type RunEntity } from '@baton/persistence';

/**
 * Seeding through the persistence entities, the way the console stores things: an engine
 * group, a tenant (its executor_secret is what its executors sign with), tasks (with their
 * first fire time in next_fire_at, which is what the planner reads) and dependency edges.
 */

export interface SeededTenant {
  id: string;
  engineGroup: string;
  executorSecret: string;
}

export async function seedTenant(
  ds: DataSource,
  options: { id: string; engineGroup: string; executorSecret?: string; ratePerSec?: number; burst?: number },
): Promise<SeededTenant> {
  const now = Date.now();
  const executorSecret = options.executorSecret ?? randomBytes(24).toString('hex');
  await ds.getRepository(EngineGroupEntity).upsert({ name: options.engineGroup, description: 'cluster test', createdAt: now }, ['name']);
  await ds.getRepository(TenantEntity).insert({
    id: options.id,
    name: `Cluster test tenant ${options.id}`,
    engineGroup: options.engineGroup,
    executorSecret,
    ratePerSec: options.ratePerSec ?? 5_000,
    burst: options.burst ?? 10_000,
    createdAt: now,
  });
  return { id: options.id, engineGroup: options.engineGroup, executorSecret };
}

/** What a test says about a task; everything else takes the console's defaults (taskDefaults). */
export interface TaskSpec extends Partial<Omit<TaskDefinition, 'tenantId' | 'trigger'>> {
  name: string;
  trigger: Trigger;
}

/** The task row the console would store for `spec` (executor app `demo` unless told). */
export function taskRow(tenant: SeededTenant, spec: TaskSpec, now = Date.now()): Partial<TaskEntity> {
  const definition: TaskDefinition = { ...taskDefaults(), executorApp: 'demo', handler: 'noop', ...spec, tenantId: tenant.id };
  const nextFireAt = firstFireTime(
    { trigger: definition.trigger, startAt: definition.startAt, endAt: definition.endAt, maxFires: definition.maxFires, fireCount: 0, calendar: null, createdAt: now },
    now,
  );
  return {
    ...taskDefinitionToColumns(definition, null),
    engineGroup: tenant.engineGroup,
    fireCount: 0,
    nextFireAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
}

/** Inserts the tasks in batches; returns their ids in order. */
export async function insertTasks(ds: DataSource, tenant: SeededTenant, specs: TaskSpec[], batch = 500): Promise<number[]> {
  const ids: number[] = [];
  const now = Date.now();
  for (let i = 0; i < specs.length; i += batch) {
    const rows = specs.slice(i, i + batch).map((s) => taskRow(tenant, s, now));
    const result = await ds.getRepository(TaskEntity).insert(rows);
    ids.push(...result.identifiers.map((r) => Number(r.id)));
  }
  return ids;
}

/**
 * Inserts `count` tasks fast, for scale benchmarks: task i is a copy of templates[i % n] named
 * `<template name>-<i>`. Each template's row (taskRow: next_fire_at from the trigger) is converted
 * to column values once; the copies go in multi-row INSERTs of `batch` rows formatted by the
 * client (no placeholder limit), so a million tasks cost a few hundred statements, not a
 * million firstFireTime calls and entity conversions.
 */
export async function insertTaskCopies(ds: DataSource, tenant: SeededTenant, templates: TaskSpec[], count: number, batch = 5_000): Promise<void> {
  const columns = ds.getMetadata(TaskEntity).columns.filter((c) => !c.isGenerated);
  const now = Date.now();
  const rows = templates.map((t) => {
    const row = taskRow(tenant, t, now);
    return columns.map((c) => ds.driver.preparePersistentValue(c.getEntityValue(row), c) as unknown);
  });
  const nameAt = columns.findIndex((c) => c.propertyName === 'name');
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const sql = (n: number) => `INSERT INTO tasks (${columns.map((c) => c.databaseName).join(', ')}) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`;
  for (let i = 0; i < count; i += batch) {
    const n = Math.min(batch, count - i);
    const params: unknown[] = [];
    for (let k = i; k < i + n; k++) {
      const row = [...rows[k % rows.length]];
      row[nameAt] = `${templates[k % templates.length].name}-${k}`;
      params.push(...row);
    }
    await ds.query(sql(n), params);
  }
}

export async function insertTask(ds: DataSource, tenant: SeededTenant, spec: TaskSpec): Promise<number> {
  return (await insertTasks(ds, tenant, [spec]))[0];
}

/** A dependency edge parent → child (ON_SUCCESS unless told). */
export async function addDependency(ds: DataSource, tenant: SeededTenant, parentTaskId: number, childTaskId: number, condition: DependencyCondition = 'ON_SUCCESS'): Promise<void> {
  await ds.getRepository(TaskDependencyEntity).insert({ tenantId: tenant.id, parentTaskId, childTaskId, condition, createdAt: Date.now() });
}

/** A PENDING run row of a task, due at `at` (written straight to the database: a test's backlog without the planner). */
export function pendingRunRow(tenant: { id: string; engineGroup: string }, taskId: number, at: number, fireKey: string, options: { now?: number; params?: unknown } = {}): Partial<RunEntity> {
  const now = options.now ?? Date.now();
  return {
    tenantId: tenant.id, taskId, engineGroup: tenant.engineGroup, state: 'PENDING', cause: 'SCHEDULE', fireKey, attempt: 1, priority: 0,
    params: (options.params ?? null) as RunEntity['params'], scheduledAt: at, dueAt: at, createdAt: now, updatedAt: now,
  };
}
