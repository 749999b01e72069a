import type { ReactNode } from 'react';

/** What a list lacks and what to do about it, instead of a bare empty table. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state" data-empty-state>
      <strong>{title}</strong>
      {children ? <div className="empty-next">{children}</div> : null}
    </div>
  );
}
