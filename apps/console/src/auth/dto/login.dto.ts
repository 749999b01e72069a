import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { ROLES, type Role } from '@baton/domain';

export class LoginDto {
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
