import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { json, millis } from './columns';

/** An exclusion calendar: local dates on which the tasks that use it do not fire. */
@Entity({ name: 'calendars' })
@Index('uq_calendars_tenant_name', ['tenantId', 'name'], { unique: true })
export class CalendarEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ name: 'time_zone', type: 'varchar', length: 64 })
  timeZone!: string;

  /** `YYYY-MM-DD` local dates, JSON array. */
  @Column({ type: 'text', transformer: json })
  dates!: string[];

  @Column({ name: 'created_at', type: 'bigint', transformer: millis })
  createdAt!: number;
}
