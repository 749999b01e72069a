import { useState, type FormEvent } from 'react';
import { post } from '../../shared/api';
import { ErrorBox, Field, useToast } from '../../shared/components';
import { fmtTime } from '../../shared/format';
import type { RotatedExecutorSecret } from '../../shared/model';
import { SecretBox } from '../../shared/SecretBox';
import { t } from '../../shared/i18n/i18n';

/** Overlap windows offered for a rotation (seconds); the API accepts 0 to 604 800. */
const OVERLAPS: Array<[number, () => string]> = [
  [86_400, () => t('24 hours (default)')],
  [3_600, () => t('1 hour')],
  [604_800, () => t('7 days')],
  [0, () => t('none: revoke the old secret at once')],
];

/**
 * Rotates an executor secret with the chosen overlap window: the caller's own tenant (tenant
 * admin), or, given `tenantIds`, the chosen one (operator).
 */
export function RotateSecretForm({ tenantIds, onRotated }: { tenantIds?: string[]; onRotated: (r: RotatedExecutorSecret) => void }) {
  const toast = useToast();
  const [overlap, setOverlap] = useState(OVERLAPS[0][0]);
  const [tenantId, setTenantId] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const chosen = tenantId || tenantIds?.[0] || '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const path = tenantIds ? `/operator/tenants/${encodeURIComponent(chosen)}/executor-secret/rotate` : '/executors/secret/rotate';
      const r = await post<RotatedExecutorSecret>(path, { overlapSeconds: overlap });
      setError(null);
      onRotated(r);
      toast.notify(t('Executor secret of {{tenant}} rotated (version {{version}})', { tenant: r.tenantId, version: r.secretVersion }));
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Rotate the executor secret')}>
      {tenantIds ? (
        <Field label={t('Tenant of the secret')}>
          {(p) => (
            <select {...p} value={chosen} onChange={(e) => setTenantId(e.target.value)}>
              {tenantIds.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <Field label={t('Keep the previous secret valid for')}>
        {(p) => (
          <select {...p} value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
            {OVERLAPS.map(([seconds, text]) => (
              <option key={seconds} value={seconds}>
                {text()}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="field field-button">
        <button type="submit">{t('Rotate secret')}</button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

/** The answer to a rotation: the new secret, once, and until when the previous one works. */
export function RotatedSecret({ rotated }: { rotated: RotatedExecutorSecret }) {
  return (
    <SecretBox label={t('New executor secret of {{tenant}}', { tenant: rotated.tenantId })} secret={rotated.executorSecret}>
      <p className="small" data-rotation-result>
        {rotated.previousSecretExpiresAt === null
          ? t('The previous secret no longer works: restart every executor with the new one now.')
          : t('The previous secret works until {{time}}: restart each executor with the new one before then.', { time: fmtTime(rotated.previousSecretExpiresAt) })}
      </p>
    </SecretBox>
  );
}
