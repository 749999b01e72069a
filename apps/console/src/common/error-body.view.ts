import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorBody, type ErrorCode, type FieldError } from '@baton/protocol';

/** FieldError of @baton/protocol, for the OpenAPI document. */
export class FieldErrorView implements FieldError {
  @ApiProperty({ example: 'trigger.expression', description: 'Dotted path; `body` for the body itself (malformed JSON, too large); a header by its lower-case name (`content-type`, `idempotency-key`)' }) field!: string;
  @ApiProperty({ example: 'not a valid cron expression' }) reason!: string;
}

/** ErrorBody of @baton/protocol, for the OpenAPI document: the body of every console 4xx/5xx. */
export class ErrorBodyView implements ErrorBody {
  @ApiProperty({ example: 400, description: 'The HTTP status, repeated' }) statusCode!: number;
  @ApiProperty({ enum: ERROR_CODES, example: 'VALIDATION_FAILED', description: 'Stable and machine-readable: branch on it (the message may change)' }) code!: ErrorCode;
  @ApiProperty({ example: 'Bad Request', description: 'The HTTP reason phrase' }) error!: string;
  @ApiProperty({ example: 'trigger.expression: not a valid cron expression', description: 'For people: with field errors, `field: reason; …`' }) message!: string;
  @ApiPropertyOptional({ type: [FieldErrorView], description: 'The fields at fault, when fields are' }) errors?: FieldErrorView[];
}
