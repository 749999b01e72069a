import { t } from '../../shared/i18n/i18n';
import { shown } from './changes';

/** A value of a change: its JSON is data (not translated); an absent one says so. */
function valueOf(value: unknown) {
  return value === undefined ? t('(not set)') : <code>{shown(value)}</code>;
}

/** Changed fields as a compact list: `field: before → after` (an absent side: not set). */
export function ChangeList({ changes, none = t('no field changed') }: { changes: ReadonlyArray<{ field: string; before?: unknown; after?: unknown }>; none?: string }) {
  if (changes.length === 0) return <span className="muted small">{none}</span>;
  return (
    <ul className="changes small">
      {changes.map((c) => (
        <li key={c.field} data-field={c.field}>
          <code>{c.field}</code>: <del>{valueOf(c.before)}</del> → <ins>{valueOf(c.after)}</ins>
        </li>
      ))}
    </ul>
  );
}
