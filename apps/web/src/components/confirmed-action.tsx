import { type KeyboardEvent, useEffect, useRef, useState } from "react";

/**
 * A button whose action asks first: it opens a warning with the confirming button (focused) and Cancel.
 * Cancel or Escape close it and give focus back to the button that opened it.
 */
export function ConfirmedAction({
  label,
  confirmLabel,
  warning,
  onConfirm,
  isBusy = false,
  isDisabled = false,
  className = "secondary",
}: {
  label: string;
  confirmLabel: string;
  warning?: string;
  /** Answers whether the action was done; the question stays open when it was not. */
  onConfirm: () => Promise<boolean>;
  isBusy?: boolean;
  isDisabled?: boolean;
  className?: string;
}) {
  const [isAsking, setAsking] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const confirming = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (isAsking) confirming.current?.focus();
    else if (wasAsking.current) opener.current?.focus();
    wasAsking.current = isAsking;
  }, [isAsking]);

  if (!isAsking) {
    return (
      <button
        ref={opener}
        type="button"
        className={className}
        onClick={() => setAsking(true)}
        disabled={isDisabled}
      >
        {label}
      </button>
    );
  }
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    setAsking(false);
  };
  const confirm = async () => {
    if (await onConfirm()) setAsking(false);
  };
  return (
    <span className="row">
      {warning && <span>{warning}</span>}
      <button
        ref={confirming}
        type="button"
        className="danger"
        onClick={() => void confirm()}
        onKeyDown={closeOnEscape}
        disabled={isBusy}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)} onKeyDown={closeOnEscape}>
        Cancel
      </button>
    </span>
  );
}
