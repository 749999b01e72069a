import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { ROLES, type Role } from '@baton/domain';
import { TENANT_ID_PATTERN } from '../../operator/dto/tenant-id';

export class LoginDto {
  @ApiPropertyOptional({ example: 'acme', description: "The tenant of the user (user names are unique per tenant only); absent for an operator" })
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenant?: string;

  @ApiProperty({ example: 'admin' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  username!: string;

  @ApiProperty({ example: 'change-me' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password!: string;
}

export class PrincipalView {
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ type: String, nullable: true, description: 'Null for operators' }) tenantId!: string | null;
  @ApiProperty({ enum: ['session', 'apiKey'] }) kind?: 'session' | 'apiKey';
}

export class LoginResponse {
  @ApiProperty({ description: 'Send as `Authorization: Bearer <token>`' }) token!: string;
  @ApiProperty({ description: 'Epoch ms' }) expiresAt!: number;
  @ApiProperty({ type: PrincipalView }) user!: PrincipalView;
}
