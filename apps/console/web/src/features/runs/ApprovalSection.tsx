import { useState } from 'react';
import { post } from '../../shared/api';
import { Time, useToast } from '../../shared/components';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import type { RunApproval } from '../../shared/model';

/**
 * A run's approval step on its page: whether it waits, who may decide and until when (and what the
 * deadline decides), the decision once made; and, for a viewer the step admits, Approve and Reject
 * with a comment. The server says who may decide (`mayDecide`): a named user may be a viewer.
 */
export function ApprovalSection({ runId, approval, onDecided }: { runId: number; approval: RunApproval; onDecided: () => void }) {
  const toast = useToast();
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const decide = async (verdict: 'approve' | 'reject') => {
    setBusy(true);
    try {
      await post(`/runs/${runId}/${verdict}`, comment.trim() ? { comment: comment.trim() } : {});
      toast.notify(verdict === 'approve' ? t('Run #{{id}} approved', { id: runId }) : t('Run #{{id}} rejected', { id: runId }), 'info');
      setComment('');
      onDecided();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    } finally {
      setBusy(false);
    }
  };
  const approvers = [...(approval.role ? [t('any {{role}}', { role: codeLabel(approval.role) })] : []), ...approval.users];
  return (
    <section className="approval" data-approval={approval.decision ?? 'WAITING'}>
      <h2>{t('Approval')}</h2>
      <dl className="facts">
        <div>
          <dt>{t('Decision')}</dt>
          <dd data-approval-decision>
            {approval.decision === null
              ? t('Waiting for a decision')
              : approval.decidedBy === null
                ? t('{{decision}} by its deadline', { decision: codeLabel(approval.decision) })
                : t('{{decision}} by {{who}}', { decision: codeLabel(approval.decision), who: approval.decidedBy })}
            {approval.decidedAt !== null ? (
              <>
                {' · '}
                <Time ms={approval.decidedAt} />
              </>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>{t('Who may decide')}</dt>
          <dd data-approval-approvers translate="no">
            {approvers.join(', ')}
          </dd>
        </div>
        <div>
          <dt>{t('Deadline')}</dt>
          <dd data-approval-deadline>
            <Time ms={approval.deadlineAt} /> · {t('then {{outcome}}', { outcome: codeLabel(approval.onTimeout) })}
          </dd>
        </div>
        {approval.comment ? (
          <div>
            <dt>{t('Comment')}</dt>
            <dd data-approval-comment translate="no">
              {approval.comment}
            </dd>
          </div>
        ) : null}
      </dl>
      {approval.mayDecide ? (
        <form className="approval-form" onSubmit={(e) => e.preventDefault()}>
          <label>
            {t('Comment (optional)')}
            <textarea name="approvalComment" rows={2} maxLength={1000} value={comment} onChange={(e) => setComment(e.target.value)} />
          </label>
          <div className="actions">
            <button type="button" data-approve disabled={busy} onClick={() => void decide('approve')}>
              {t('Approve')}
            </button>
            <button type="button" data-reject className="btn-danger" disabled={busy} onClick={() => void decide('reject')}>
              {t('Reject')}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
