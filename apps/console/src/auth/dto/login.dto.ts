import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { MAX_USERNAME_LENGTH, ROLES, type Role } from '@baton/domain';
import { TENANT_ID_PATTERN } from '../../common/tenant-id';

/** A login name and its password: the body of a password login, and of an LDAP one (sso.dto). */
export class CredentialsDto {
  @ApiProperty({ example: 'admin', description: 'The login name (for LDAP, the directory name: its tenant comes from its groups)' })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_USERNAME_LENGTH)
  username!: string;

  // MinLength(1): an LDAP bind with an empty password is an anonymous bind, which "succeeds".
  @ApiProperty({ example: 'change-me' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password!: string;
}

export class LoginDto extends CredentialsDto {
  @ApiPropertyOptional({ example: 'acme', description: "The tenant of the user (user names are unique per tenant only); absent for an operator" })
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenant?: string;
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
