import { Column, Entity, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/** One engine process. Its heartbeat is how the others know it is alive (Quartz's scheduler_state). */
@Entity({ name: 'engine_nodes' })
export class EngineNodeEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  /** Engine groups served, comma-separated. */
  @Column({ type: 'varchar', length: 1000 })
  groups!: string;

  @Column({ type: 'varchar', length: 255 })
  host!: string;

  @Column({ type: 'int' })
  pid!: number;

  /** Base URL of its callback API. */
  @Column({ type: 'varchar', length: 500 })
  url!: string;

  @Column({ type: 'int' })
  slots!: number;

  @Column({ name: 'started_at', type: 'bigint', transformer: millis })
  startedAt!: number;

  @Column({ name: 'heartbeat_at', type: 'bigint', transformer: millis })
  heartbeatAt!: number;

  /** Its clock's offset from the database's (database − engine, ms) at its last heartbeat; null until measured. */
  @Column({ name: 'clock_offset_ms', type: 'int', nullable: true })
  clockOffsetMs!: number | null;

  /**
   * The key the console signs a wake-up's run rows with for this node (random at each start); null
   * for a node registered before it existed. A secret: never selected unless asked for.
   */
  @Column({ name: 'wake_key', type: 'varchar', length: 64, nullable: true, select: false })
  wakeKey!: string | null;

  /** UP while heartbeating, DOWN once declared dead or stopped. */
  @Column({ type: 'varchar', length: 16 })
  state!: string;
}
