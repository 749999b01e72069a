import { Column, Entity, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/** A secret every process of the cluster shares, made by the first that needs it (readClusterSecret). */
@Entity({ name: 'cluster_secrets' })
export class ClusterSecretEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
