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

export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child the caller passes.
    <label className="field">
      <span className="field-label">{label}</span>
      {children}
      {hint && <span className="hint">{hint}</span>}
    </label>
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
