import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, ValidateIf } from 'class-validator';
import type * as Api from '../../api-types';

/** What an XXL-JOB access token may be: 16 to 128 visible ASCII characters (it travels in an HTTP header and a properties file). */
export const XXL_JOB_TOKEN_PATTERN = /^[\x21-\x7e]{16,128}$/;

export class SetXxlJobTokenDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "The token to set (16–128 visible ASCII characters: xxl-job-core's `xxl.job.accessToken`). Absent: Baton makes a new random one. null: no token — the tenant's XXL-JOB admin API refuses every executor.",
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Matches(XXL_JOB_TOKEN_PATTERN, { message: 'token must be 16 to 128 visible ASCII characters (no spaces)' })
  token?: string | null;
}

/** The answer: the token in this answer only, and where the tenant's XXL-JOB executors point. */
export class XxlJobTokenView implements Api.XxlJobToken {
  @ApiProperty() tenantId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'xxl.job.accessToken for the executors; null: none set. Shown once: store it now.' })
  accessToken!: string | null;
  @ApiProperty({ description: 'The path of the tenant\'s XXL-JOB admin API on every engine: xxl.job.admin.addresses = <engine URL> + this' })
  adminPath!: string;
}
