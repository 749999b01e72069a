import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { millis } from './columns';

/** A console login session. Only the token's SHA-256 is kept, so a leaked table yields no session. */
@Entity({ name: 'sessions' })
@Index('uq_sessions_token_hash', ['tokenHash'], { unique: true })
export class SessionEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  userId!: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: millis })
  expiresAt!: number;
}
