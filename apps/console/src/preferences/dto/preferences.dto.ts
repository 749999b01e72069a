import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type * as Api from '../../api-types';

/** The console's languages. */
export const LANGUAGES = ['en', 'zh-CN'] as const;
export const THEMES = ['light', 'dark'] as const;

/** PUT /api/me/preferences: the whole set; an omitted or null field goes back to the browser's. */
export class PreferencesDto {
  @ApiProperty({ enum: LANGUAGES, nullable: true, required: false, description: "Console language; null: the browser's" })
  @IsOptional()
  @IsIn(LANGUAGES)
  language?: (typeof LANGUAGES)[number] | null;

  @ApiProperty({ type: String, nullable: true, required: false, example: 'Asia/Shanghai', description: "Display time zone (IANA name); null: the browser's" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timeZone?: string | null;

  @ApiProperty({ enum: THEMES, nullable: true, required: false, description: "null: the browser's" })
  @IsOptional()
  @IsIn(THEMES)
  theme?: (typeof THEMES)[number] | null;
}

export class PreferencesView implements Api.Preferences {
  @ApiProperty({ enum: LANGUAGES, nullable: true }) language!: (typeof LANGUAGES)[number] | null;
  @ApiProperty({ type: String, nullable: true }) timeZone!: string | null;
  @ApiProperty({ enum: THEMES, nullable: true }) theme!: (typeof THEMES)[number] | null;
}
