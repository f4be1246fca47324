import type { Key, ReactNode, Ref } from "react";

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

/**
 * A table of rows, one column a field. On a phone each row stands as a block of "header: value" lines, so
 * that no column is cut off; on a wider screen it scrolls sideways when it must, inside its own box that
 * takes focus so that a keyboard can scroll it too. The box is a figure, not a landmark: a page may hold
 * several tables, and a section of its own already names each.
 */
export function Table<T>({
  ref,
  label,
  caption,
  columns,
  rows,
  rowKey,
}: {
  ref?: Ref<HTMLElement>;
  label: string;
  caption?: ReactNode;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => Key;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
    <figure ref={ref} className="table-wrap" tabIndex={0} aria-label={label}>
      <table aria-label={label} className="stacked">
        {caption && <caption className="hint">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={column.className} data-label={column.header}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
