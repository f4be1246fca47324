import { cloneElement, isValidElement, type ReactNode, type SelectHTMLAttributes, useId } from "react";

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

/** A select of fixed choices, each shown as its value unless `labels` names it. */
export function Choices<const T extends string>({
  options,
  labels,
  ...select
}: SelectHTMLAttributes<HTMLSelectElement> & { options: readonly T[]; labels?: Record<T, string> }) {
  return (
    <select {...select}>
      {options.map((option) => (
        <option key={option} value={option}>
          {labels?.[option] ?? option}
        </option>
      ))}
    </select>
  );
}
