import { type ReactNode, useState } from "react";

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
      <CopyButton value={value} />
    </div>
  );
}

/** Copies `value`, and says so (or that the browser refused, so that the reader copies it by hand). */
export function CopyButton({ value }: { value: string }) {
  const [outcome, setOutcome] = useState<"copied" | "refused" | undefined>(undefined);
  const copy = async () => {
    const isCopied = await (navigator.clipboard?.writeText(value) ?? Promise.reject()).then(
      () => true,
      () => false,
    );
    setOutcome(isCopied ? "copied" : "refused");
  };
  return (
    <span className="row">
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>
      <span aria-live="polite" className={outcome === "refused" ? "error" : "hint"}>
        {outcome === "copied" && "Copied"}
        {outcome === "refused" && "The browser did not allow copying: select the text and copy it."}
      </span>
    </span>
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
