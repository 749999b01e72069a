import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { millis } from './columns';

/**
 * The console's login throttle (apps/console/src/auth/login-throttle.ts), shared by every console
 * of a cluster so that N consoles behind a load balancer allow no more guesses than one. One row
 * per throttled key — an (account, client address) pair or a client address —, named by the
 * SHA-256 of the key, so the table holds neither user names nor addresses.
 */
@Entity({ name: 'login_throttle' })
@Index('ix_login_throttle_last_failure', ['lastFailureAt'])
export class LoginThrottleEntity {
  @PrimaryColumn({ name: 'throttle_key', type: 'varchar', length: 64 })
  key!: string;

  /** Failures since the key was last forgotten (or cleared by a right password). */
  @Column({ type: 'int' })
  failures!: number;

  @Column({ name: 'last_failure_at', type: 'bigint', transformer: millis })
  lastFailureAt!: number;

  /** Attempts before this are refused unchecked (0: no wait). */
  @Column({ name: 'wait_until', type: 'bigint', transformer: millis })
  waitUntil!: number;
}
