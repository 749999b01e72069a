import type { ReactNode, TdHTMLAttributes } from 'react';

/** Attributes a row or cell may carry besides React's own: the `data-*` hooks tests and styles select on. */
type DataAttributes = { [key: `data-${string}`]: string | number | boolean | undefined };

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  className?: string;
  /** Per-row cell attributes, e.g. a title with the full value. */
  cellProps?: (row: T) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
}

/**
 * The console's one list table. `rows` undefined means still loading: neither rows nor the empty
 * state show, so "nothing here" never flashes before the first answer.
 * A column given as `false` is left out (e.g. Actions for a viewer).
 */
export function DataTable<T>({
  label,
  className,
  columns,
  rows,
  rowKey,
  rowProps,
  empty,
}: {
  label: string;
  className?: string;
  columns: ReadonlyArray<Column<T> | false>;
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string | number;
  rowProps?: (row: T) => { className?: string } & DataAttributes;
  empty: ReactNode;
}) {
  const shown = columns.filter((c): c is Column<T> => c !== false);
  return (
    <div className="table-wrap">
      <table className={className ? `data ${className}` : 'data'} aria-label={label}>
        <thead>
          <tr>
            {shown.map((c, i) => (
              <th key={i} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows?.map((row) => (
            <tr key={rowKey(row)} {...rowProps?.(row)}>
              {shown.map((c, i) => (
                <td key={i} className={c.className} {...c.cellProps?.(row)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
          {rows?.length === 0 ? (
            <tr>
              <td colSpan={shown.length}>{empty}</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
