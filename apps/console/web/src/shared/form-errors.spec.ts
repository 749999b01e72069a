import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import { errorsOf } from './form-errors';

const invalid = (errors: Array<{ field: string; reason: string }>) =>
  new ApiError(400, { statusCode: 400, code: 'VALIDATION_FAILED', error: 'Bad Request', message: errors.map((e) => `${e.field}: ${e.reason}`).join('; '), errors });

describe('errorsOf', () => {
  it('puts a reason beside its field and no banner', () => {
    expect(errorsOf(invalid([{ field: 'url', reason: 'must be a URL' }]), ['name', 'url'])).toEqual({ url: 'must be a URL' });
  });

  it('banners only the reasons that name no field of the form', () => {
    expect(errorsOf(invalid([{ field: 'url', reason: 'must be a URL' }, { field: 'other', reason: 'is odd' }]), ['url'])).toEqual({ url: 'must be a URL', _: 'other: is odd' });
  });

  it('puts a reason on a part of a field beside that field', () => {
    expect(errorsOf(invalid([{ field: 'executorNetworks[1]', reason: 'always refused' }]), ['executorNetworks'])).toEqual({ executorNetworks: 'executorNetworks[1]: always refused' });
  });

  it('banners the message when no reason has a field here, and a plain error', () => {
    expect(errorsOf(invalid([{ field: 'other', reason: 'is odd' }]), ['url'])).toEqual({ _: 'other: is odd' });
    expect(errorsOf(new ApiError(409, { statusCode: 409, code: 'CONFLICT', error: 'Conflict', message: 'Name taken' }), ['name'])).toEqual({ _: 'Name taken' });
    expect(errorsOf(new Error('offline'), ['name'])).toEqual({ _: 'offline' });
  });
});
