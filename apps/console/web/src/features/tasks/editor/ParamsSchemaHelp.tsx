import { t } from '../../../shared/i18n/i18n';
import type { Executor, JsonValue } from '../../../shared/model';

type Schema = { [key: string]: JsonValue };

/**
 * The JSON schema of a handler's params, as its app's UP executor heard from last declares it —
 * the one the API checks a task's params against on save (apps/console/src/tasks/params-check.ts).
 */
export function declaredSchema(executors: readonly Executor[], app: string, handler: string): Schema | null {
  const declaring = executors.filter((x) => x.app === app && x.state === 'UP' && x.handlerSchemas[handler] !== undefined).sort((a, b) => b.heartbeatAt - a.heartbeatAt || b.id - a.id);
  const schema = declaring[0]?.handlerSchemas[handler];
  return schema !== undefined && schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schema : null;
}

/** What the params may hold, read from the schema's top-level properties: name, type, required, limits, description. */
export function ParamsSchemaHelp({ handler, schema }: { handler: string; schema: Schema }) {
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return (
    <details className="schema-help" open data-params-schema={handler}>
      <summary>
        {t('Params of')} <span className="mono">{handler}</span>
        {t(', as its executors declare them')}
        {schema.additionalProperties === false ? ` ${t('(no others allowed)')}` : ''}
      </summary>
      {properties.length ? (
        <ul className="small">
          {properties.map(([name, spec]) => (
            <li key={name} data-param={name}>
              <span className="mono">{name}</span>
              {required.includes(name) ? <strong> {t('required')}</strong> : null} <span className="muted">{describe(spec)}</span>
              {isObject(spec) && typeof spec.description === 'string' ? <span translate="no">{` — ${spec.description}`}</span> : ''}
            </li>
          ))}
        </ul>
      ) : (
        <pre className="code small">{JSON.stringify(schema, null, 2)}</pre>
      )}
    </details>
  );
}

function isObject(value: JsonValue | undefined): value is Schema {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** `integer ≥ 0 ≤ 100`, `one of "png", "jpeg"`, `array`: the type and limits of one property. */
function describe(spec: JsonValue): string {
  if (!isObject(spec)) return '';
  const parts: string[] = [];
  if (Array.isArray(spec.enum)) parts.push(t('one of {{values}}', { values: spec.enum.map((v) => JSON.stringify(v)).join(', ') }));
  else if (spec.type !== undefined) parts.push(Array.isArray(spec.type) ? spec.type.join(' | ') : String(spec.type));
  if (typeof spec.minimum === 'number') parts.push(`≥ ${spec.minimum}`);
  if (typeof spec.maximum === 'number') parts.push(`≤ ${spec.maximum}`);
  if (typeof spec.minLength === 'number') parts.push(t('at least {{count}} characters', { count: spec.minLength }));
  if (typeof spec.maxLength === 'number') parts.push(t('at most {{count}} characters', { count: spec.maxLength }));
  return parts.join(' ');
}
