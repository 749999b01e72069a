import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, ValidateBy, ValidateIf, ValidationTypes } from 'class-validator';
import { displayNameProblem, nameProblem } from '@baton/domain';
import { badRequest, FieldError } from './api-error';
import { isRawField } from './raw-json';

/** The rule OptionalNotNull adds: a null sent for a field that may only be left out. */
const NOT_NULL = 'notNull';

const REASONS: Record<string, (message: string) => string> = {
  whitelistValidation: () => 'unknown field (not allowed)',
};

/**
 * Rules on what a value is, before how big: when one fails, the field's range rules are not
 * reasons too (`from=abc` is "must be an integer", not also "must be at least 0; at most …").
 */
const TYPE_RULES = new Set([NOT_NULL, 'isDefined', 'isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'isEnum', 'isIn', 'isDate']);

/**
 * A field's reasons: its type rules' when one failed, else every rule's; class-validator's own
 * messages without the field's name (the error names it). A null refused by OptionalNotNull is
 * told first ("must not be null (leave the field out …); must be a string").
 */
function reasonsOf(error: ValidationError): string {
  const failed = Object.entries(error.constraints ?? {}).sort(([a], [b]) => Number(b === NOT_NULL) - Number(a === NOT_NULL));
  const typeFailed = failed.filter(([key]) => TYPE_RULES.has(key));
  return (typeFailed.length > 0 ? typeFailed : failed)
    .map(([key, message]) => {
      const mapped = REASONS[key];
      if (mapped) return mapped(message);
      return message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message;
    })
    .join('; ');
}

/**
 * A required field left out (or null): not a field sent with a wrong value, nor an unknown one,
 * nor a null sent for a field that may be left out (OptionalNotNull: "is required" would be
 * untrue there; its own reason says what to send instead).
 */
function isMissing(error: ValidationError): boolean {
  const constraints = error.constraints ?? {};
  return 'value' in error && (error.value === undefined || error.value === null) && !('whitelistValidation' in constraints) && !(NOT_NULL in constraints) && !error.children?.length;
}

/** Flattens class-validator's tree into dotted field paths (`trigger.expression`, `dates[2]`), as the domain's validators do. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    if (error.constraints && isMissing(error)) {
      // One clear reason, not every rule the absent value fails ("must be a string; must be longer than…").
      out.push({ field, reason: 'is required' });
    } else if (error.constraints) {
      out.push({ field, reason: reasonsOf(error) });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/**
 * A field that may be left out but is never null. @IsOptional skips null as well, which suits a
 * field whose service reads null as "not given" (`??`); where leaving a field out means
 * "unchanged" (`!== undefined`) or a default (a default parameter, which a null does not take) a
 * null would reach the database or the service as a value, so a null is refused naming the field,
 * with what leaving it out means — `whenLeftOut`, e.g. 'to keep it as it is' — and what the
 * field's other rules take: `secret: must not be null (leave the field out for a secret Baton
 * makes); must be a string`. Not "is required", which the field is not.
 */
export const OptionalNotNull =
  (whenLeftOut: string): PropertyDecorator =>
  (target, property) => {
    ValidateIf((_object: object, value: unknown) => value !== undefined)(target, property as string);
    ValidateBy({ name: NOT_NULL, validator: { validate: (value: unknown) => value !== null, defaultMessage: () => `must not be null (leave the field out ${whenLeftOut})` } })(target, property as string);
  };

/**
 * A name under Baton's one rule for names (nameProblem: A-Z a-z 0-9 . _ -, 1 to 100, as tasks,
 * groups, executor apps and calendars are named), refused with that rule's reason: an inbound
 * webhook's, an API key's. No control character (a NUL, a newline) nor space gets into a name an
 * audit record, a log line or an approval step shows. Only what is sent is checked: names stored
 * before are read and answered as they are.
 */
export const IsName = () =>
  ValidateBy({ name: 'isName', validator: { validate: (value: unknown) => nameProblem(value) === null, defaultMessage: (args) => nameProblem(args?.value) ?? '' } });

/**
 * A display name (displayNameProblem: free text a person reads, any characters but control ones,
 * not blank, at most `maxLength`), refused with the rule's reason: a tenant's name. Only what is
 * sent is checked: names stored before are read and answered as they are.
 */
export const IsDisplayName = (maxLength: number) =>
  ValidateBy({
    name: 'isDisplayName',
    validator: { validate: (value: unknown) => displayNameProblem(value, maxLength) === null, defaultMessage: (args) => displayNameProblem(args?.value, maxLength) ?? '' },
  });

/**
 * A request body must be a JSON object (a DTO); an array or a bare value is refused up front.
 * A path parameter reaches its route's own pipe as the text sent: Nest's `+value` for a
 * parameter typed `number` would make `1.0`, `0x1` and ` 1` the id 1 before IdPipe sees them.
 */
class ConsoleValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDtoBody = metadata.type === 'body' && typeof metadata.metatype === 'function' && metadata.metatype !== Object;
    if (isDtoBody && value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw badRequest([{ field: 'body', reason: `must be a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` }]);
    }
    const rawFields = isDtoBody ? rawOnlyFields(metadata.metatype!) : null;
    return rawFields ? this.rawOnlyBody(value as Record<string, unknown> | undefined, metadata.metatype!, rawFields) : super.transform(value, metadata);
  }

  /**
   * What the full pipe makes of a body whose DTO declares only @IsOptional() @Raw() fields (a
   * trigger's, a batch's): the same prototype keys stripped, the same 400 for an unknown field, the
   * same DTO instance holding the values as sent — without class-transformer's copy and
   * class-validator's walk: the full pipe was 6 % of the console's CPU samples of a trigger
   * (`npm run bench -- console-request --kinds=trigger --profile`).
   */
  private rawOnlyBody(value: Record<string, unknown> | undefined, type: NonNullable<ArgumentMetadata['metatype']>, fields: ReadonlySet<string>): unknown {
    const body = value ?? {};
    this.closeArrayGaps(body);
    this.stripProtoKeys(body);
    const unknown = Object.keys(body).filter((field) => !fields.has(field));
    if (unknown.length > 0) throw badRequest(unknown.map((field) => ({ field, reason: REASONS.whitelistValidation('') })));
    return Object.assign(new (type as new () => object)(), body);
  }
}

/** Each body DTO class's fields when every one is @IsOptional() @Raw() with no other rule (null: any other class), found once per class. */
const RAW_ONLY = new WeakMap<object, ReadonlySet<string> | null>();

function rawOnlyFields(type: NonNullable<ArgumentMetadata['metatype']>): ReadonlySet<string> | null {
  let fields = RAW_ONLY.get(type);
  if (fields === undefined) {
    // As class-validator's whitelist reads them: the fields with a rule (IsOptional is one) are the allowed ones.
    const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', false, false);
    const names = new Set(rules.map((rule) => rule.propertyName));
    const rawOnly = rules.length > 0 && rules.every((rule) => rule.type === ValidationTypes.CONDITIONAL_VALIDATION) && [...names].every((name) => isRawField(type, name));
    fields = rawOnly ? names : null;
    RAW_ONLY.set(type, fields);
  }
  return fields;
}

/**
 * The console's validation pipe: only declared fields pass (unknown ones are a 400 naming them),
 * payloads become DTO instances, and every error names its field.
 */
export function consoleValidationPipe(): ValidationPipe {
  return new ConsoleValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // `value` kept for isMissing only (a missing field gets one reason); it is not answered.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => badRequest(flattenValidationErrors(errors)),
  });
}
