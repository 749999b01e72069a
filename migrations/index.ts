import type { MigrationInterface } from 'typeorm';
import { InitialSchema1732240000000 } from './1732240000000-initial-schema';

/**
 * Every migration, oldest first. They are the only way a Baton schema is made, on MySQL and
 * SQLite alike (openDatabase runs them); libs/persistence/src/schema-drift.spec.ts proves that
 * they build exactly what the entities describe.
 */
export const MIGRATIONS: Array<new () => MigrationInterface> = [InitialSchema1732240000000];
