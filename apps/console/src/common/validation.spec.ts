import { ArgumentMetadata, HttpException, ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { badRequest } from './api-error';
import { Raw } from './raw-json';
import { consoleValidationPipe, flattenValidationErrors, OptionalNotNull } from './validation';

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
    expect(body.errors).toEqual([{ field: 'retry.maxAttempts', reason: 'must not be less than 1' }]);
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
      { field: 'password', reason: 'must be a string' },
    ]);
  });

  it('a value of the wrong type gets its type rule only, without the field name class-validator puts in its messages', () => {
    const wrongType = { property: 'from', value: 'abc', constraints: { max: 'from must not be greater than 9', min: 'from must not be less than 0', isInt: 'from must be an integer number' }, children: [] };
    const outOfRange = { property: 'name', value: 'x', constraints: { minLength: 'name must be longer than or equal to 2 characters', matches: 'must be a slug' }, children: [] };
    expect(flattenValidationErrors([wrongType, outOfRange])).toEqual([
      { field: 'from', reason: 'must be an integer number' },
      { field: 'name', reason: 'must be longer than or equal to 2 characters; must be a slug' },
    ]);
  });
});

class SecretBody {
  @IsString()
  name!: string;

  @OptionalNotNull('for a secret Baton makes')
  @IsString()
  secret?: string;
}

describe('console validation pipe, a field that may be left out but is never null (OptionalNotNull)', () => {
  const through = (value: unknown) =>
    consoleValidationPipe()
      .transform(value, { type: 'body', metatype: SecretBody, data: '' })
      .catch((error: HttpException) => error.getResponse());

  it('answers a null with what is wrong and what leaving the field out means, not "is required" (the field is not)', async () => {
    expect(await through({ name: 'x', secret: null })).toMatchObject({
      statusCode: 400,
      errors: [{ field: 'secret', reason: 'must not be null (leave the field out for a secret Baton makes); must be a string' }],
    });
  });

  it('takes the field left out, checks a value sent, and still calls a required field sent null "is required"', async () => {
    expect(await through({ name: 'x' })).toEqual(Object.assign(new SecretBody(), { name: 'x' }));
    expect(await through({ name: 'x', secret: 5 })).toMatchObject({ errors: [{ field: 'secret', reason: 'must be a string' }] });
    expect(await through({ name: null, secret: 'given' })).toMatchObject({ errors: [{ field: 'name', reason: 'is required' }] });
  });
});

/** Only @IsOptional() @Raw() fields, as a trigger's body: the pipe's precompiled path. */
class RawOnly {
  @IsOptional()
  @Raw()
  params?: unknown;

  @IsOptional()
  @Raw()
  flowParams?: unknown;
}

class RawOnlyChild extends RawOnly {}

/** A raw field beside a checked one: the full pipe. */
class RawAndChecked {
  @IsOptional()
  @Raw()
  params?: unknown;

  @IsString()
  name!: string;
}

/** What Nest's own pipe, with the console's options, makes of a body (the reference for the precompiled path). */
async function fullPipe(value: unknown, metatype: ArgumentMetadata['metatype']): Promise<unknown> {
  const pipe = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => badRequest(flattenValidationErrors(errors)),
  });
  return pipe.transform(value, { type: 'body', metatype, data: '' }).catch((error: HttpException) => error.getResponse());
}

async function consolePipe(value: unknown, metatype: ArgumentMetadata['metatype']): Promise<unknown> {
  return consoleValidationPipe()
    .transform(value, { type: 'body', metatype, data: '' })
    .catch((error: HttpException) => error.getResponse());
}

describe('console validation pipe, a body of @Raw fields only', () => {
  const bodies: Array<[string, () => unknown]> = [
    ['none', () => undefined],
    ['empty', () => ({})],
    ['params as sent', () => ({ params: { a: [1, { b: 'c' }], n: null }, flowParams: 'x' })],
    ['prototype keys at any depth', () => JSON.parse('{"params":{"__proto__":{"x":1},"constructor":2,"prototype":3,"ok":[{"constructor":4}]},"constructor":5}')],
    ['unknown fields', () => ({ params: 1, colour: 'red', size: 2 })],
  ];

  it.each(bodies)('answers as the full pipe does: %s', async (_name, body) => {
    for (const type of [RawOnly, RawOnlyChild]) {
      const [fast, full] = [await consolePipe(body(), type), await fullPipe(body(), type)];
      expect(fast).toEqual(full);
      if (!(full as { statusCode?: number }).statusCode) expect(fast).toBeInstanceOf(type);
    }
  });

  it('names each unknown field', async () => {
    expect(await consolePipe({ params: 1, colour: 'red' }, RawOnly)).toMatchObject({ statusCode: 400, errors: [{ field: 'colour', reason: 'unknown field (not allowed)' }] });
  });

  it('still checks a class with another rule beside its raw fields', async () => {
    expect(await consolePipe({ params: 1 }, RawAndChecked)).toMatchObject({ statusCode: 400, errors: [{ field: 'name', reason: 'is required' }] });
    expect(await consolePipe({ params: 1, name: 'x' }, RawAndChecked)).toEqual(Object.assign(new RawAndChecked(), { params: 1, name: 'x' }));
  });
});

