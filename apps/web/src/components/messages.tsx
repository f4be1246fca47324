import type { ReactNode } from "react";

/** An error the page shows: announced by screen readers as it appears. */
export function ErrorMessage({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-live="polite">Loading {what}…</p>;
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

/**
 * What a page loads (see useLoad), once it is there: until then the loading line, and its error if the
 * load failed. `empty` stands instead when `isEmpty` says there is nothing to show.
 */
export function Loaded<T>({
  state,
  what,
  isEmpty,
  empty,
  children,
}: {
  state: { data: T | undefined; error: string | undefined };
  what: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { data, error } = state;
  return (
    <>
      <ErrorMessage text={error} />
      {data === undefined ? <Loading what={what} /> : isEmpty?.(data) ? <p>{empty}</p> : children(data)}
    </>
  );
}
