import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_PASSWORD_BYTES, MaxPasswordBytes } from '../../common/password';

export class ChangePasswordDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  currentPassword!: string;

  @ApiProperty({ minLength: 8, maxLength: MAX_PASSWORD_BYTES, description: `At most ${MAX_PASSWORD_BYTES} bytes (UTF-8)` })
  @IsString()
  @MinLength(8)
  @MaxPasswordBytes()
  newPassword!: string;
}
