import { Column, Entity, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/** A named subset of the engine cluster; tenants are bound to one. */
@Entity({ name: 'engine_groups' })
export class EngineGroupEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 500, default: '' })
  description!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
