import { canonicalCronTrigger, parseCron, type TaskDefinition } from '@baton/domain';

/** Cron expressions and zones are stored in their canonical spelling (trimmed, `Europe/Berlin`), daylight-saving policies left out when they are the defaults. */
export function canonical(definition: TaskDefinition): TaskDefinition {
  if (definition.trigger.kind !== 'CRON') return definition;
  const parsed = parseCron(definition.trigger.expression, definition.trigger.timeZone);
  if (!parsed.ok) return definition; // validateTask has refused it already
  return { ...definition, trigger: canonicalCronTrigger({ ...definition.trigger, expression: parsed.expression, timeZone: parsed.timeZone }) };
}
