import { cloneElement, isValidElement, type ReactNode, useId } from "react";

/** An error the page shows: announced by screen readers as it appears. */
export function ErrorMessage({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

/**
 * A labelled control. Its hint and `problems` describe it (a screen reader reads them after the label);
 * with problems the control is also marked invalid.
 */
export function Field({
  label,
  hint,
  problems,
  children,
}: {
  label: string;
  hint?: string;
  problems?: string[];
  children: ReactNode;
}) {
  const id = useId();
  const hasProblems = problems !== undefined && problems.length > 0;
  const describedBy = [hint && `${id}-hint`, hasProblems && `${id}-problems`].filter(Boolean).join(" ");
  const control = isValidElement<Record<string, unknown>>(children)
    ? cloneElement(children, {
        id,
        ...(describedBy && { "aria-describedby": describedBy }),
        ...(hasProblems && { "aria-invalid": true }),
      })
    : children;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {control}
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {hasProblems && (
        <span className="field-problem" id={`${id}-problems`}>
          {problems.join("\n")}
        </span>
      )}
    </div>
  );
}

/** A secret shown once (an API key, a webhook secret), with a button that copies it. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> It is shown only now: store it somewhere safe.
      </p>
      <code data-testid="secret">{value}</code>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>
        Copy
      </button>
    </div>
  );
}

export function formatDate(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : "—";
}

export function Loading({ what }: { what: string }) {
  return <p aria-live="polite">Loading {what}…</p>;
}

/**
 * A link of the API on this page's origin: the API answers absolute links on its public address, which
 * may not be the one the browser reached (a proxy, a test server), and the page's policy loads only its own.
 */
export function onThisOrigin(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return `${parsed.pathname}${parsed.search}`;
}

/** Previous and next page of an offset-paginated list, and where the reader is in it. */
export function Pager({
  label,
  offset,
  limit,
  total,
  onChange,
}: {
  label: string;
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
}) {
  if (total <= limit && offset === 0) return null;
  const pages = Math.max(1, Math.ceil(total / limit));
  const page = Math.floor(offset / limit) + 1;
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        className="secondary"
        disabled={offset === 0}
        onClick={() => onChange(Math.max(0, offset - limit))}
      >
        Previous page
      </button>
      <span aria-live="polite">
        Page {page} of {pages}
      </span>
      <button
        type="button"
        className="secondary"
        disabled={offset + limit >= total}
        onClick={() => onChange(offset + limit)}
      >
        Next page
      </button>
    </nav>
  );
}

/** A table that scrolls sideways on a narrow screen; focusable, so that a keyboard can scroll it too. */
export function ScrollingTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
    <section className="table-wrap" tabIndex={0} aria-label={label}>
      <table aria-label={label}>{children}</table>
    </section>
  );
}
