import { useRef, useState, type ReactNode } from 'react';
import { t } from './i18n/i18n';

/**
 * Copies `text` to the clipboard: navigator.clipboard where the page may use it (HTTPS or
 * localhost), else the old selection-and-execCommand route. Returns false when neither worked;
 * the caller then leaves the text selected for Ctrl+C.
 */
async function copyText(text: string, fallback: HTMLInputElement | HTMLTextAreaElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // denied (permissions, no focus): the selection route below
  }
  if (!fallback) return false;
  fallback.focus();
  fallback.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

/** A button that copies `text` (or selects it in `target` when the browser refuses) and says which happened. */
export function CopyButton({ text, target, label = t('Copy') }: { text: string; target: () => HTMLInputElement | HTMLTextAreaElement | null; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');
  const onClick = async () => {
    const copied = await copyText(text, target());
    setState(copied ? 'copied' : 'selected');
    window.setTimeout(() => setState('idle'), 3000);
  };
  return (
    <button type="button" className="copy-button" onClick={() => void onClick()} aria-label={t('{{label}}: copy to the clipboard', { label })}>
      {state === 'copied' ? t('Copied ✓') : state === 'selected' ? t('Selected: press Ctrl+C') : label}
    </button>
  );
}

/**
 * A secret shown once (an executor secret at tenant creation or rotation): read-only, with a
 * copy button and the warning that it will not be shown again.
 */
export function SecretBox({ label, secret, children }: { label: string; secret: string; children?: ReactNode }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className="secret-box" role="region" aria-label={label} data-secret-box>
      <p className="secret-warning" role="alert">
        <strong>{t('Shown once — store it now.')}</strong> {t('This page does not show it again; if it is lost, rotate it.')}
      </p>
      <label className="secret-label">
        {label}
        <span className="secret-row">
          <input ref={input} className="mono" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} aria-label={label} spellCheck={false} data-secret />
          <CopyButton text={secret} target={() => input.current} />
        </span>
      </label>
      {children}
    </div>
  );
}
