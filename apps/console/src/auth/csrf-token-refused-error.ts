import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { CSRF_HEADER } from './session-cookie';

/** 403 FORBIDDEN: a write authenticated by the session cookie without the CSRF token of its session; `errors` names the header. */
export class CsrfTokenRefusedError extends ApiError {
  constructor(reason: string) {
    super(HttpStatus.FORBIDDEN, `${CSRF_HEADER} ${reason}`, { code: 'FORBIDDEN', errors: [{ field: CSRF_HEADER, reason }] });
  }
}
