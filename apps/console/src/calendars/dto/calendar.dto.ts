import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import type * as Api from '../../api-types';

const Raw = () => Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);

/**
 * An exclusion calendar as sent. The class declares the fields (unknown ones are a 400); the
 * domain's validateCalendar decides what is valid.
 */
export class CalendarBodyDto {
  @ApiProperty({ type: String, example: 'holidays', description: 'Unique within the tenant; A-Z a-z 0-9 . _ -' })
  @IsOptional()
  @Raw()
  name?: unknown;

  @ApiProperty({ type: String, example: 'Europe/Berlin', description: 'IANA zone in which the dates are local dates' })
  @IsOptional()
  @Raw()
  timeZone?: unknown;

  @ApiProperty({ type: [String], example: ['2026-12-25', '2026-12-26'], description: 'Local dates YYYY-MM-DD' })
  @IsOptional()
  @Raw()
  dates?: unknown;
}

/** PATCH: the fields given replace the calendar's, the others stay. */
export class CalendarPatchDto extends PartialType(CalendarBodyDto) {}

export class CalendarView implements Api.Calendar {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() timeZone!: string;
  @ApiProperty({ type: [String] }) dates!: string[];
  @ApiProperty() createdAt!: number;
  @ApiPropertyOptional({ description: 'Tasks using the calendar' }) taskCount?: number;
}
