import { Time } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtDuration } from '../../shared/format';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { isTerminal, type RunAttempt, type RunDetail, type RunLog, type TimelineEntry } from '../../shared/model';

const STEP_LABEL: Record<TimelineEntry['step'], () => string> = {
  SCHEDULED: () => t('Scheduled'),
  DISPATCHED: () => t('Dispatched'),
  ACCEPTED: () => t('Accepted'),
  STARTED: () => t('Started'),
  FINISHED: () => t('Finished'),
};

/** Why a step can read earlier than one before it (the API flags it; the console says why in the viewer's language). */
function whyEarly(step: TimelineEntry['step']): string {
  if (step === 'STARTED')
    return t(
      'Started comes before Accepted here: the executor starts the handler while it answers the dispatch, and its clock measured Started, while Accepted is when the engine received that answer. The steps always read in this order.',
    );
  if (step === 'FINISHED') return t("Finished is measured by the executor's clock (the engine's for a run it ended): a clock difference between the machines can put it before an engine step.");
  return t("Reported earlier than a step before it: the steps come from two machines' clocks.");
}

/** One attempt's steps in the one fixed order (Scheduled → Finished), each with the time since the previous one. */
export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <>
      <ol className="timeline" aria-label={t('Run timeline')}>
        {entries.map((e, i) => {
          const prev = entries.slice(0, i).reverse().find((x) => x.at !== null)?.at ?? null;
          return (
            <li
              key={e.step}
              className={`${e.at !== null ? 'done' : 'todo'}${e.outOfOrder ? ' out-of-order' : ''}`}
              data-step={e.step.toLowerCase()}
              title={e.clock === 'engine' ? t("the engine's clock") : t("the executor's clock")}
            >
              <span className="tl-label">{STEP_LABEL[e.step]()}</span>
              <span className="tl-time mono">
                <Time ms={e.at} withMs />
              </span>
              <span className="tl-delta small muted">{e.at !== null && prev !== null && i > 0 ? `${e.at >= prev ? '+' : ''}${fmtDuration(e.at - prev)}` : ''}</span>
            </li>
          );
        })}
      </ol>
      {entries
        .filter((e) => e.outOfOrder)
        .map((e) => (
          <p key={e.step} className="small muted" data-timeline-note={e.step.toLowerCase()}>
            {whyEarly(e.step)}
          </p>
        ))}
    </>
  );
}

function LogTable({ attempt, lines, live }: { attempt: number; lines: RunLog[]; live: boolean }) {
  return (
    <DataTable
      label={t('Log lines of attempt {{n}}', { n: attempt })}
      className="logs"
      rows={lines}
      rowKey={(l) => l.id}
      rowProps={(l) => ({ className: `log-${l.level}` })}
      empty={
        <EmptyState title={live ? t('No log lines yet.') : t('This attempt wrote no log lines.')}>
          {t('A handler writes them with ctx.log.info(…) (and warn, error); they show here live, within about a second.')}
        </EmptyState>
      }
      columns={[
        { header: t('Time'), className: 'mono small', cell: (l) => <Time ms={l.at} withMs /> },
        { header: t('Level'), cell: (l) => l.level },
        { header: t('Message'), className: 'mono', cellProps: () => ({ translate: 'no' as const }), cell: (l) => l.message },
      ]}
    />
  );
}

/**
 * Every attempt of the run, the latest first and open: its timeline, its error and its log lines
 * (the latest's live, as the handler writes them); earlier attempts folded below it.
 */
export function AttemptsSection({ run, attempts }: { run: RunDetail; attempts: RunAttempt[] | undefined }) {
  const latest = attempts?.find((a) => a.latest);
  const earlier = (attempts ?? []).filter((a) => !a.latest).reverse();
  const liveLines = run.logs.filter((l) => l.attempt === run.attempt);
  return (
    <section aria-labelledby="attempts-h" data-attempts={attempts?.length ?? 0}>
      <h2 id="attempts-h">{attempts && attempts.length > 1 ? t('Attempts ({{count}})', { count: attempts.length }) : t('Timeline')}</h2>
      {latest ? <Timeline entries={latest.timeline} /> : null}
      <h3>{attempts && attempts.length > 1 ? t('Log lines of attempt {{n}}', { n: run.attempt }) : t('Log lines')}</h3>
      <LogTable attempt={run.attempt} lines={liveLines} live={!isTerminal(run.state)} />
      {earlier.map((a) => (
        <details key={a.attempt} className="attempt" data-attempt={a.attempt}>
          <summary>
            {t('Attempt {{n}}', { n: a.attempt })} · {a.state ? codeLabel(a.state) : '—'}
            {a.error ? (
              <>
                {' '}
                · <span translate="no">{a.error}</span>
              </>
            ) : null}
          </summary>
          <Timeline entries={a.timeline} />
          <LogTable attempt={a.attempt} lines={a.logs} live={false} />
        </details>
      ))}
    </section>
  );
}
