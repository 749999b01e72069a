import { useState } from 'react';

/**
 * The pages of a keyset list walked so far: the cursor of the page shown (undefined: the first),
 * a way back and a way on. Back pops the last cursor, so no cursor is ever made up here.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors[cursors.length - 1] as string | undefined,
    /** Back to the first page (a filter changed). */
    reset: () => setCursors([]),
    canGoBack: cursors.length > 0,
    back: () => setCursors((c) => c.slice(0, -1)),
    on: (nextCursor: string) => setCursors((c) => [...c, nextCursor]),
  };
}

/** "Newer / Older"-style buttons under a keyset list. */
export function CursorPager({ pages, nextCursor, backLabel, onLabel }: { pages: ReturnType<typeof useCursorPages>; nextCursor: string | null | undefined; backLabel: string; onLabel: string }) {
  return (
    <div className="pager">
      <button type="button" className="btn-ghost" disabled={!pages.canGoBack} onClick={pages.back}>
        {backLabel}
      </button>
      <button type="button" className="btn-ghost" disabled={!nextCursor} onClick={() => nextCursor && pages.on(nextCursor)}>
        {onLabel}
      </button>
    </div>
  );
}
