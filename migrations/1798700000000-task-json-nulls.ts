import { MigrationInterface, QueryRunner } from 'typeorm';

/** A task's optional JSON settings (event filter and projection, key bounds, debounce, throttle). */
const COLUMNS = ['event_filter', 'event_params', 'key_concurrency', 'key_rate', 'key_debounce', 'key_throttle'];

/**
 * A task's optional JSON settings say "none" with SQL NULL. They were written through a transformer
 * that stored JSON's `null` as the text "null" when a setting was removed (`PATCH … {"concurrency":
 * null}`), which a reader that tells NULL apart took for a bound: the held runs of a key whose bound
 * was removed were never released, and the held-keys sweep failed on them for every tenant. The
 * entity now writes SQL NULL (nullableJson); this turns the texts already written into it.
 */
export class TaskJsonNulls1798700000000 implements MigrationInterface {
  name = 'TaskJsonNulls1798700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of COLUMNS) await queryRunner.query(`UPDATE tasks SET ${column} = NULL WHERE ${column} = 'null'`);
  }

  public async down(): Promise<void> {
    // Nothing to undo: NULL reads as "none" through either transformer.
  }
}
