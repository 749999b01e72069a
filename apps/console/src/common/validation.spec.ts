import { ArgumentMetadata, HttpException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { consoleValidationPipe, flattenValidationErrors } from './validation';

class Inner {
  @IsInt()
  @Min(1)
  maxAttempts!: number;
}

class Outer {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  retry?: Inner;
}

const meta: ArgumentMetadata = { type: 'body', metatype: Outer, data: '' };

async function errorsOf(value: unknown) {
  try {
    await consoleValidationPipe().transform(value, meta);
  } catch (error) {
    return (error as HttpException).getResponse() as { statusCode: number; errors: Array<{ field: string; reason: string }> };
  }
  throw new Error('expected a 400');
}

describe('console validation pipe', () => {
  it('names nested fields with dotted paths', async () => {
    const body = await errorsOf({ name: 'x', retry: { maxAttempts: 0 } });
    expect(body.statusCode).toBe(400);
    expect(body.errors).toEqual([{ field: 'retry.maxAttempts', reason: 'maxAttempts must not be less than 1' }]);
  });

  it('refuses unknown fields, at any depth, naming them', async () => {
    const body = await errorsOf({ name: 'x', colour: 'red', retry: { maxAttempts: 2, tries: 1 } });
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { field: 'colour', reason: 'unknown field (not allowed)' },
        { field: 'retry.tries', reason: 'unknown field (not allowed)' },
      ]),
    );
  });

  it('refuses a body that is not an object', async () => {
    expect((await errorsOf([1])).errors).toEqual([{ field: 'body', reason: 'must be a JSON object, not an array' }]);
    expect((await errorsOf('text')).errors).toEqual([{ field: 'body', reason: 'must be a JSON object, not string' }]);
  });

  it('passes and transforms a valid body', async () => {
    const value = await consoleValidationPipe().transform({ name: 'x', retry: { maxAttempts: 2 } }, meta);
    expect(value).toBeInstanceOf(Outer);
    expect((value as Outer).retry).toBeInstanceOf(Inner);
  });

  it('writes array indexes in brackets, as the domain does', () => {
    expect(
      flattenValidationErrors([
        { property: 'dates', children: [{ property: '2', constraints: { isDate: 'bad date' }, children: [] }], constraints: undefined },
      ]),
    ).toEqual([{ field: 'dates[2]', reason: 'bad date' }]);
  });

  it('a field left out gets one reason, "is required", not every rule its absence fails (issue 24: a bare login answered six)', () => {
    const missing = { property: 'username', value: undefined, constraints: { isString: 'must be a string', minLength: 'must be longer', maxLength: 'must be shorter' }, children: [] };
    const wrong = { property: 'password', value: 42, constraints: { isString: 'must be a string', minLength: 'must be longer' }, children: [] };
    expect(flattenValidationErrors([missing, wrong])).toEqual([
      { field: 'username', reason: 'is required' },
      { field: 'password', reason: 'must be a string; must be longer' },
    ]);
  });
});
