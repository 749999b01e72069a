import type { ReactNode } from 'react';

/** The filter fields above a list: they apply as they change, so the form never submits. */
export function FilterBar({ label, children }: { label: string; children: ReactNode }) {
  return (
    <form className="filters" role="search" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      {children}
    </form>
  );
}
