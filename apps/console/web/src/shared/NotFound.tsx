import type { ReactNode } from 'react';
import { PageHeader } from './components';

/**
 * A page for what is not there: a path the console has no page for, or an object the API answers
 * 404 for — missing, or another tenant's, which the API does not tell apart and neither does this.
 * Its heading and the way back, and nothing to act on.
 */
export function NotFound({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div data-not-found>
      <PageHeader title={title} />
      <p>{children}</p>
    </div>
  );
}
