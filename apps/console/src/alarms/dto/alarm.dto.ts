import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ALARM_TYPES, SEVERITIES, type AlarmType, type JsonValue, type Severity } from '@baton/domain';
import { InstantQuery, IntQuery, PageQuery, ToBoolean, ToList } from '../../common/query';
import type * as Api from '../../api-types';

export class AlarmQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'true: acknowledged only; false: open only' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  acked?: boolean;

  @ApiPropertyOptional({ enum: ALARM_TYPES, isArray: true, description: 'One or several types (comma-separated or repeated)' })
  @IsOptional()
  @ToList()
  @IsIn(ALARM_TYPES, { each: true })
  type?: AlarmType[];

  @IntQuery('Only alarms of this task', 1)
  taskId?: number;

  @InstantQuery('Raised at or after (epoch ms)')
  from?: number;

  @InstantQuery('Raised before (epoch ms)')
  to?: number;
}

export class AlarmView implements Api.Alarm {
  @ApiProperty() id!: number;
  @ApiProperty({ description: "Stable id: the alarm's `id` on its topic and in the socket.io `alarm` event" }) uid!: string;
  @ApiProperty({ enum: ALARM_TYPES }) type!: AlarmType;
  @ApiProperty({ enum: SEVERITIES }) severity!: Severity;
  @ApiProperty({ type: Number, nullable: true }) taskId!: number | null;
  @ApiProperty({ type: Number, nullable: true }) runId!: number | null;
  @ApiProperty({ type: Number, nullable: true }) executorId!: number | null;
  @ApiProperty() message!: string;
  @ApiProperty({ nullable: true, description: 'Free-form JSON' }) data!: JsonValue | null;
  @ApiProperty({ description: 'Repeats collapsed into this alarm' }) count!: number;
  @ApiProperty() raisedAt!: number;
  @ApiProperty({ type: Number, nullable: true }) ackedAt!: number | null;
  @ApiProperty({ type: String, nullable: true }) ackedBy!: string | null;
}

export class AlarmPage implements Api.Page<AlarmView> {
  @ApiProperty({ type: [AlarmView] }) items!: AlarmView[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}
