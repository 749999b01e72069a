import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { OptionalNotNull } from '../../common/validation';
import type * as Api from '../../api-types';

/** How long the previous secret stays valid after a rotation when the request does not say. Default 86 400 s (24 h). */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;
/** Longest overlap window a rotation may ask for: 604 800 s (7 days). */
export const MAX_SECRET_OVERLAP_SECONDS = 604_800;

export class RotateExecutorSecretDto {
  @ApiPropertyOptional({
    default: DEFAULT_SECRET_OVERLAP_SECONDS,
    minimum: 0,
    maximum: MAX_SECRET_OVERLAP_SECONDS,
    description:
      'Seconds the previous secret stays valid beside the new one, so executors can be restarted with the new secret one by one. 0 revokes it at once (engines drop it within their 5 s tenant cache).',
  })
  // Not @IsOptional: a null passed it and reached rotate(), whose default a null does not take, as 0 —
  // the previous secret revoked at once, every executor still on it refused.
  @OptionalNotNull(`for the default, ${DEFAULT_SECRET_OVERLAP_SECONDS}`)
  @IsInt()
  @Min(0)
  @Max(MAX_SECRET_OVERLAP_SECONDS)
  overlapSeconds?: number;
}

/** The answer to a rotation: the only time the new secret is shown to a tenant admin. */
export class RotatedExecutorSecretView implements Api.RotatedExecutorSecret {
  @ApiProperty() tenantId!: string;
  @ApiProperty({ description: 'The new secret (BATON_EXECUTOR_SECRET). Shown once: store it now.' }) executorSecret!: string;
  @ApiProperty({ description: 'Version of the new secret (each rotation adds one)' }) secretVersion!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'When the previous secret stops working (epoch ms); null when it was revoked at once' })
  previousSecretExpiresAt!: number | null;
}

/** What an executor of this tenant needs to connect, except the secret itself. */
export class ExecutorConnectionView implements Api.ExecutorConnection {
  @ApiProperty({ description: 'BATON_TENANT' }) tenantId!: string;
  @ApiProperty({ description: "The tenant's engine group" }) engineGroup!: string;
  @ApiProperty({ type: [String], description: 'BATON_ENGINE_URLS: callback URLs of the UP engines of the group' }) engineUrls!: string[];
  @ApiProperty({ type: [String], description: 'BATON_EXECUTOR_APP values: the apps named by tasks and registered executors' }) apps!: string[];
  @ApiProperty({ description: 'Version of the current executor secret' }) secretVersion!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'While a rotation overlaps: when the previous secret stops working (epoch ms)' })
  previousSecretExpiresAt!: number | null;
}
