import { t } from '../../shared/i18n/i18n';
import type { ConfigAppliedChange, ConfigAppliedNames, ConfigApplyRecord, ConfigChangeAction, ConfigChangeKind } from '../../shared/model';
import { ChangeList } from './ChangeList';
import { changesOf } from './changes';

/** Kinds in the order an apply makes its changes. */
const KINDS: Record<ConfigChangeKind, () => string> = {
  retention: () => t('Retention'),
  calendar: () => t('Calendars'),
  webhook: () => t('Webhooks'),
  task: () => t('Tasks'),
  dependency: () => t('Dependencies'),
};

const COUNTED: Record<ConfigChangeAction, (count: number) => string> = {
  create: (count) => t('{{count}} created', { count }),
  update: (count) => t('{{count}} updated', { count }),
  delete: (count) => t('{{count}} deleted', { count }),
};

/** What a change did, as a sentence per kind (the kind's noun differs in each language). */
const DONE: Record<ConfigChangeKind, Partial<Record<ConfigChangeAction, () => string>>> = {
  retention: { update: () => t('Retention updated') },
  calendar: { create: () => t('Calendar created'), update: () => t('Calendar updated'), delete: () => t('Calendar deleted') },
  webhook: { create: () => t('Webhook created'), update: () => t('Webhook updated'), delete: () => t('Webhook deleted') },
  task: { create: () => t('Task created'), update: () => t('Task updated'), delete: () => t('Task deleted') },
  dependency: { create: () => t('Dependency created'), update: () => t('Dependency updated'), delete: () => t('Dependency deleted') },
};

/** Changes listed open up to this many; more are behind their summary. */
const OPEN_UP_TO = 5;

/** A config.apply record's `after`, when it is one (not a record cut to `{ truncated, bytes }`). */
export function applyRecordOf(after: unknown): ConfigApplyRecord | null {
  const record = after as Partial<ConfigApplyRecord> | null;
  return record && typeof record.counts === 'object' && record.counts !== null && Array.isArray(record.changes) ? (record as ConfigApplyRecord) : null;
}

/** A tasks-as-code apply: how many of each kind it created, updated and deleted, then each change with its values (a deletion: the object as it was). */
export function ApplyRecord({ record }: { record: ConfigApplyRecord }) {
  const total = Object.values(record.counts).reduce((sum, byAction) => sum + Object.values(byAction ?? {}).reduce((a, n) => a + (n ?? 0), 0), 0);
  return (
    <div className="apply-record small" data-apply-record>
      <ul className="apply-counts">
        {(Object.keys(KINDS) as ConfigChangeKind[])
          .filter((kind) => record.counts[kind])
          .map((kind) => (
            <li key={kind} data-count={kind}>
              {KINDS[kind]()}:{' '}
              {(Object.keys(COUNTED) as ConfigChangeAction[])
                .filter((action) => record.counts[kind]![action])
                .map((action) => COUNTED[action](record.counts[kind]![action]!))
                .join(' · ')}
            </li>
          ))}
        {record.prune ? (
          <li>
            <code>--prune</code>
          </li>
        ) : null}
      </ul>
      {total > 0 ? (
        <details open={total <= OPEN_UP_TO}>
          <summary>{t('{{count}} change(s)', { count: total })}</summary>
          <ul className="apply-changes">
            {record.changes.map((c) => (
              <li key={`${c.kind}:${c.name}`} data-change={`${c.kind}:${c.name}`} data-action={c.action}>
                {DONE[c.kind]?.[c.action]?.() ?? `${c.kind} ${c.action}`}: <code translate="no">{c.name}</code>
                <ChangeValues change={c} />
              </li>
            ))}
          </ul>
          {record.changesLeftOut ? <p className="muted">{t('{{count}} more change(s) not kept in the record', { count: record.changesLeftOut })}</p> : null}
        </details>
      ) : null}
    </div>
  );
}

/** A change's fields with their values; by name only when the record has no values for them (too big, or a record written before it kept values). */
function ChangeValues({ change }: { change: ConfigAppliedChange | ConfigAppliedNames }) {
  if (change.fields.some((f) => typeof f === 'string')) {
    return (
      <div className="field-names">
        {(change.fields as string[]).map((f, i) => (
          <span key={f}>
            {i > 0 ? ', ' : null}
            <code>{f}</code>
          </span>
        ))}
        {'valuesLeftOut' in change ? <span className="muted"> · {t('Values not kept: too big for the audit record')}</span> : null}
      </div>
    );
  }
  if ('valuesLeftOut' in change) return <div className="muted">{t('Values not kept: too big for the audit record')}</div>;
  const valued = change as ConfigAppliedChange;
  // A deletion: each field of the object as it was, gone.
  return <ChangeList changes={valued.action === 'delete' ? changesOf(valued.before, undefined) : valued.fields} none="" />;
}
