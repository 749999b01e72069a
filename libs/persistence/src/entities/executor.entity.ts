import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ExecutorState, ExecutorWire } from '@baton/domain';
import { json, millis, type StoredJson } from './columns';

/** The executor registry: one row per executor process (tenant, app, URL), kept alive by heartbeats. */
@Entity({ name: 'executors' })
@Index('uq_executors_tenant_app_url', ['tenantId', 'app', 'url'], { unique: true })
// The UP executors, read every second by every engine (findUpExecutors, findSilentExecutors,
// sumExecutorCapacity): the DOWN rows every pod restart leaves are not read. Rewritten by a
// heartbeat (heartbeat_at), every few seconds per executor.
@Index('ix_executors_state', ['state', 'tenantId', 'heartbeatAt'])
export class ExecutorEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  /** Executor app name; tasks name the app that runs them. */
  @Column({ type: 'varchar', length: 100 })
  app!: string;

  /** Base URL of the executor wrapper. */
  @Column({ type: 'varchar', length: 500 })
  url!: string;

  /** Size of its worker pool. */
  @Column({ type: 'int' })
  capacity!: number;

  /** Places in its queue beyond the pool, from its last heartbeat; 0 when it does not say. */
  @Column({ name: 'queue_limit', type: 'int', default: 0 })
  queueLimit!: number;

  /** The executor protocol it speaks, from its last heartbeat (1 when it does not say): 2 and later take runs sent ahead of their instant. */
  @Column({ name: 'protocol_version', type: 'int', default: 1 })
  protocolVersion!: number;

  /** How engines speak to it: `baton` (the executor protocol) or `xxl-job` (an xxl-job-core executor registered through the XXL-JOB admin API). */
  @Column({ type: 'varchar', length: 16, default: 'baton' })
  wire!: ExecutorWire;

  /** Runs in flight at its last heartbeat. */
  @Column({ name: 'in_flight', type: 'int', default: 0 })
  inFlight!: number;

  @Column({ type: 'varchar', length: 8 })
  state!: ExecutorState;

  /** The tenant's executor secret version that verified its latest heartbeat (the one it signs and verifies with); null before the first. */
  @Column({ name: 'secret_version', type: 'int', nullable: true })
  secretVersion!: number | null;

  /** The handler names its last heartbeat offered, JSON array. */
  @Column({ type: 'text', nullable: true, transformer: json })
  handlers!: string[] | null;

  /** JSON schemas of some of those handlers' params, by name, as its last heartbeat declared them; null: none. */
  @Column({ name: 'handler_schemas', type: 'text', nullable: true, transformer: json })
  handlerSchemas!: StoredJson;

  @Column({ name: 'registered_at', type: 'bigint', transformer: millis })
  registeredAt!: number;

  @Column({ name: 'heartbeat_at', type: 'bigint', transformer: millis })
  heartbeatAt!: number;

  /**
   * How many times engines handed back the runs sent ahead to it while it was silent (protocol 3:
   * those it provably never started, dispatched again elsewhere). Sent in each heartbeat's ack
   * (`handBacks`): an executor that sees it change drops the runs it holds for later instants.
   */
  @Column({ name: 'hand_backs', type: 'int', default: 0 })
  handBacks!: number;

  /** When it stopped gracefully (last heartbeat: draining, nothing in flight): DOWN without an alarm. Null while it runs, or when it went silent. */
  @Column({ name: 'stopped_at', type: 'bigint', nullable: true, transformer: millis })
  stoppedAt!: number | null;
}
