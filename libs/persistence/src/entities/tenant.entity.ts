import { Column, Entity, PrimaryColumn } from 'typeorm';
import { json, millis } from './columns';

/** A customer of the platform; everything else hangs off it. */
@Entity({ name: 'tenants' })
export class TenantEntity {
  /** Short slug (`acme`); also names the alarm topic `baton.alarms.<id>`. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The engine group whose engines serve this tenant. */
  @Column({ name: 'engine_group', type: 'varchar', length: 64 })
  engineGroup!: string;

  /** HMAC key shared with this tenant's executors. Kept in clear: the engine must sign with it. */
  @Column({ name: 'executor_secret', type: 'varchar', length: 128 })
  executorSecret!: string;

  /** Bumped by every rotation of the executor secret; the previous secret's version is this minus one. */
  @Column({ name: 'executor_secret_version', type: 'int', default: 1 })
  executorSecretVersion!: number;

  /** The executor secret before the last rotation, still accepted until `previousSecretExpiresAt`; null when none. */
  @Column({ name: 'previous_executor_secret', type: 'varchar', length: 128, nullable: true })
  previousExecutorSecret!: string | null;

  /** When the previous executor secret stops being accepted (epoch ms); null when there is none. */
  @Column({ name: 'previous_secret_expires_at', type: 'bigint', nullable: true, transformer: millis })
  previousSecretExpiresAt!: number | null;

  /**
   * The access token of its XXL-JOB executors (xxl-job-core's `xxl.job.accessToken`): they send it
   * to its XXL-JOB admin API, the engines send it to them. In clear: the engines must send it.
   * Null: no XXL-JOB executor may register.
   */
  @Column({ name: 'xxl_job_access_token', type: 'varchar', length: 128, nullable: true })
  xxlJobAccessToken!: string | null;

  /** Token bucket of the tenant: runs per second it may dispatch (refill rate). */
  @Column({ name: 'rate_per_sec', type: 'int', default: 1000 })
  ratePerSec!: number;

  /** Token bucket of the tenant: burst capacity. */
  @Column({ name: 'burst', type: 'int', default: 2000 })
  burst!: number;

  /**
   * Its weight when the engines divide the runs they hold among the tenants with due work
   * (weighted max-min fair shares, apps/engine/src/claimer). Default 1: every tenant equal.
   */
  @Column({ name: 'claim_share', type: 'int', default: 1 })
  claimShare!: number;

  /**
   * Where this tenant's executors may live: CIDR ranges, addresses, host names, `*.domain`s
   * (libs/domain executor-networks.ts). Null: anywhere but link-local and metadata addresses.
   */
  @Column({ name: 'executor_networks', type: 'text', nullable: true, transformer: json })
  executorNetworks!: string[] | null;

  /** BACKLOG_LATE when the tenant's oldest due run waits longer than this (ms). Null: the engines' BATON_BACKLOG_ALARM_MS (default 60 s); 0: never. */
  @Column({ name: 'backlog_alarm_ms', type: 'int', nullable: true })
  backlogAlarmMs!: number | null;

  /** When the BACKLOG_LATE episode going on was alarmed (one engine wins a guarded update); null: none going on. */
  @Column({ name: 'backlog_late_since', type: 'bigint', nullable: true, transformer: millis })
  backlogLateSince!: number | null;

  /** Its users sign in only through single sign-on (OIDC, LDAP); password logins are refused, API keys still work. */
  @Column({ name: 'sso_required', type: 'boolean', default: false })
  ssoRequired!: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
