/** A page of a keyset-paged list: pass nextCursor back as `cursor` for the next one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
