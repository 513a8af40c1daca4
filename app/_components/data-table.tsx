import { Fragment, type ReactNode, type TdHTMLAttributes } from "react";
import { cx } from "./ui";

/**
 * The console's one table. From the `xl` breakpoint (1280 px) every column shows: cells
 * wrap, and long values truncate through `Truncate` with the full text on hover. Below
 * it each row becomes a card whose cells are labelled by their `label` (app/globals.css,
 * `.data-table`). The sideways scroll only keeps a layout bug readable; the layout spec
 * fails on it.
 */
export function Table({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cx("data-table overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800", className)}>
      <table className="w-full divide-y divide-zinc-200 text-sm dark:divide-zinc-800">{children}</table>
    </div>
  );
}

export function Th({ children, className }: { children?: ReactNode; className?: string }) {
  return (
    <th
      scope="col"
      className={cx(
        "whitespace-nowrap bg-zinc-50 px-2 py-2 align-bottom text-left text-xs font-semibold uppercase tracking-wide text-zinc-500 first:pl-3 last:pr-3 dark:bg-zinc-900",
        className,
      )}
    >
      {children}
    </th>
  );
}

/**
 * A cell. Below `xl` the row is a card: `label` names the cell there (the header is
 * hidden), and `wide` gives a long value more room (a phone's whole card).
 */
export function Td({ label, wide, className, ...cell }: TdHTMLAttributes<HTMLTableCellElement> & { label?: string; wide?: boolean; "data-testid"?: string }) {
  return <td data-label={label} data-wide={wide || undefined} className={cx("px-2 py-2 align-top first:pl-3 last:pr-3", className)} {...cell} />;
}

/** One line cut to its box in a wide table, the whole value on hover; in a card it wraps. */
export function Truncate({ text, className, children }: { text: string; className?: string; children?: ReactNode }) {
  return (
    <span title={text} className={cx("block min-w-0 [overflow-wrap:anywhere] xl:truncate", className)}>
      {children ?? text}
    </span>
  );
}

/** A URL path that may break after its slashes and before a colon, never inside a word. */
export function BreakablePath({ path }: { path: string }) {
  const parts = path.split(/(?<=\/)|(?=:)/);
  return (
    <span title={path}>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}

/** Action buttons of a row: they wrap onto more lines rather than squeeze or clip. */
export function RowActions({ children, className }: { children: ReactNode; className?: string }) {
  return <div className={cx("flex flex-wrap items-start gap-1 xl:justify-end", className)}>{children}</div>;
}
