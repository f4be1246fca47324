import type { OffsetPages } from "../hooks";

interface PageStep {
  label: string;
  /** Absent where there is no page that way. */
  go: (() => void) | undefined;
}

/** Buttons to the pages either side of this one, and where the reader is, when there is more than one page. */
export function PagerNav({
  label,
  previous,
  next,
  position,
}: {
  label: string;
  previous: PageStep;
  next: PageStep;
  position?: string;
}) {
  if (!previous.go && !next.go) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={!previous.go} onClick={previous.go}>
        {previous.label}
      </button>
      {position && <span aria-live="polite">{position}</span>}
      <button type="button" className="secondary" disabled={!next.go} onClick={next.go}>
        {next.label}
      </button>
    </nav>
  );
}

/** Previous and next page of an offset-paginated list (see useOffsetPages) of `total` items. */
export function Pager({ label, pages, total }: { label: string; pages: OffsetPages; total: number }) {
  const { offset, limit, setOffset } = pages;
  const page = Math.floor(offset / limit) + 1;
  return (
    <PagerNav
      label={label}
      previous={{
        label: "Previous page",
        go: offset > 0 ? () => setOffset(Math.max(0, offset - limit)) : undefined,
      }}
      next={{ label: "Next page", go: offset + limit < total ? () => setOffset(offset + limit) : undefined }}
      position={`Page ${page} of ${Math.max(1, Math.ceil(total / limit))}`}
    />
  );
}
