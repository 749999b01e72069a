import { get, qs } from '../../shared/api';
import { StateBadge, Time } from '../../shared/components';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import type { Page, Run } from '../../shared/model';

/** The node colours of the flow view, by the state of the task's run in the flow. */
const LEGEND = [
  ['flow-SUCCEEDED', ['SUCCEEDED']],
  ['flow-ACCEPTED', ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED']],
  ['flow-RETRY_WAIT', ['RETRY_WAIT']],
  ['flow-FAILED', ['FAILED', 'TIMED_OUT']],
  ['flow-CANCELLED', ['CANCELLED', 'SKIPPED']],
] as const;

export function FlowLegend() {
  return (
    <ul className="flow-legend" aria-label={t('Colours of the flow view')} data-flow-legend>
      {LEGEND.map(([cls, states]) => (
        <li key={cls}>
          <svg width="18" height="12" aria-hidden="true" className={`dag-node ${cls}`}>
            <rect x="1" y="1" width="16" height="10" rx="2" />
          </svg>
          {states.map(codeLabel).join(' / ')}
        </li>
      ))}
      <li>
        <svg width="18" height="12" aria-hidden="true" className="dag-node flow-none">
          <rect x="1" y="1" width="16" height="10" rx="2" />
        </svg>
        {t('no run in this flow')}
      </li>
    </ul>
  );
}

/**
 * The latest flows to pick from: runs that are the root of a flow (a run whose flow is itself),
 * newest first, among the tenant's recent runs.
 */
export function RecentFlows({ onPick }: { onPick: (flowId: number) => void }) {
  const recent = useLoad(() => get<Page<Run>>(`/runs${qs({ limit: 200 })}`), []);
  const roots = (recent.data?.items ?? []).filter((r) => r.flowId === r.id).slice(0, 10);
  if (!roots.length) return null;
  return (
    <div className="field recent-flows">
      <span className="label-like">{t('Recent flows')}</span>
      <ul data-recent-flows>
        {roots.map((r) => (
          <li key={r.id}>
            <button type="button" className="btn-small btn-ghost" onClick={() => onPick(r.id)} data-flow-pick={r.id}>
              #{r.id} <span translate="no">{r.taskName}</span> <StateBadge state={r.state} /> <Time ms={r.scheduledAt} />
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
