import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { MAX_USERNAME_LENGTH, ROLES, type Role } from '@baton/domain';
import { MAX_PASSWORD_BYTES, MaxPasswordBytes } from '../../common/password';
import { OptionalNotNull } from '../../common/validation';
import { TENANT_ID_PATTERN } from '../../common/tenant-id';
import type * as Api from '../../api-types';

/** A username given to a user made through the API (single sign-on users keep their directory's: see principalNameProblem). */
export const USERNAME_PATTERN = new RegExp(`^[A-Za-z0-9._@-]{1,${MAX_USERNAME_LENGTH}}$`);

/** The roles a tenant user can have (a tenant admin grants these only, never OPERATOR). */
export const TENANT_ROLES = ['TENANT_ADMIN', 'TENANT_VIEWER'] as const satisfies readonly Role[];
export type TenantRole = (typeof TENANT_ROLES)[number];

/** A new password: at least 8 characters, at most 72 bytes (UTF-8). */
class PasswordField {
  @ApiProperty({ minLength: 8, maxLength: MAX_PASSWORD_BYTES, description: `At most ${MAX_PASSWORD_BYTES} bytes (UTF-8)` })
  @IsString()
  @MinLength(8)
  @MaxPasswordBytes()
  password!: string;
}

/** Username and password of a new user (also the first admin of a new tenant). */
export class NewUserCredentialsDto extends PasswordField {
  @ApiProperty({ example: 'alice' })
  @IsString()
  @Matches(USERNAME_PATTERN, { message: `must be 1-${MAX_USERNAME_LENGTH} characters: A-Z a-z 0-9 . _ @ -` })
  username!: string;
}

/** Operator: any role; tenant roles need the tenant. */
export class CreateUserDto extends NewUserCredentialsDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role!: Role;

  @ApiPropertyOptional({ description: 'Required for tenant roles, absent for OPERATOR' })
  @IsOptional()
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: 'must be a tenant id (slug)' })
  tenantId?: string;
}

/** Tenant admin: a user of the caller's own tenant. */
export class CreateTenantUserDto extends NewUserCredentialsDto {
  @ApiProperty({ enum: TENANT_ROLES })
  @IsIn(TENANT_ROLES, { message: `must be one of ${TENANT_ROLES.join(', ')}` })
  role!: TenantRole;
}

export class UpdateUserDto {
  @ApiPropertyOptional({ enum: TENANT_ROLES, description: 'Tenant users move between TENANT_ADMIN and TENANT_VIEWER; an OPERATOR stays one' })
  @OptionalNotNull('to keep it as it is')
  @IsIn(TENANT_ROLES, { message: `must be one of ${TENANT_ROLES.join(', ')}` })
  role?: TenantRole;

  @ApiPropertyOptional({ description: 'True: the user cannot log in and its sessions end. False: enabled again' })
  @OptionalNotNull('to keep it as it is')
  @IsBoolean()
  disabled?: boolean;
}

/** An administrator sets a user's password (the user's sessions end); its own only with the current one. */
export class ResetPasswordDto extends PasswordField {
  @ApiPropertyOptional({ description: "Required when the user is the caller itself (a session of it, or an API key it owns): its current password. Not asked for another user's" })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  currentPassword?: string;
}

export class UserView implements Api.User {
  @ApiProperty() id!: number;
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ type: String, nullable: true }) tenantId!: string | null;
  @ApiProperty() disabled!: boolean;
  @ApiProperty() createdAt!: number;
}
