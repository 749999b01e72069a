import { useRef, useState } from 'react';
import { post } from '../../shared/api';
import { ErrorBox, useToast } from '../../shared/components';
import type { XxlJobToken } from '../../shared/model';
import { CopyButton, SecretBox } from '../../shared/SecretBox';
import { t } from '../../shared/i18n/i18n';

/**
 * "XXL-JOB executors", in the Connect panel (tenant admin): a new XXL-JOB access token, shown once, and the
 * properties an unchanged xxl-job-core executor needs to run this tenant's tasks
 * (docs/MANUAL.md, "XXL-JOB executors, unchanged").
 */
export function XxlJobPanel({ engineUrls }: { engineUrls: string[] }) {
  const toast = useToast();
  const [token, setToken] = useState<XxlJobToken | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const props = useRef<HTMLTextAreaElement>(null);
  const make = async () => {
    try {
      const made = await post<XxlJobToken>('/executors/xxl-job-token', {});
      setError(null);
      setToken(made);
      toast.notify(t('New XXL-JOB token of {{tenant}} set', { tenant: made.tenantId }));
    } catch (err) {
      setError(err as Error);
    }
  };
  const adminPath = token?.adminPath;
  const propsText = token
    ? [
        `xxl.job.admin.addresses=${(engineUrls.length ? engineUrls : [`<${t('an engine URL')}>`]).map((url) => url + adminPath).join(',')}`,
        `xxl.job.accessToken=${token.accessToken ?? ''}`,
        `xxl.job.executor.appname=<${t('your app name')}>`,
      ].join('\n')
    : '';
  return (
    <div role="region" aria-labelledby="xxl-job-h" data-xxl-job-panel>
      <h3 id="xxl-job-h">{t('XXL-JOB executors')}</h3>
      <p className="small">
        {t('An executor built on xxl-job-core runs this tenant’s tasks unchanged: make a token, then set these properties on it. A new token replaces the old one at once.')}
      </p>
      <button type="button" onClick={() => void make()}>
        {t('Make a new XXL-JOB token')}
      </button>
      <ErrorBox error={error} />
      {token?.accessToken ? (
        <>
          <SecretBox label={t('XXL-JOB token of {{tenant}}', { tenant: token.tenantId })} secret={token.accessToken} />
          <div className="env-block">
            <textarea ref={props} className="mono small" readOnly value={propsText} aria-label={t('Properties of an XXL-JOB executor')} rows={3} />
            <CopyButton text={propsText} target={() => props.current} label={t('Copy properties')} />
          </div>
        </>
      ) : null}
    </div>
  );
}
