import type { AccountApiKey } from "@imagehub/domain";
import { useRef, useState } from "react";
import { formatDate } from "../format";
import { ConfirmedAction } from "./confirmed-action";
import { Table } from "./table";

const SCOPE_LABELS: Record<AccountApiKey["scope"], string> = { full: "Full", "read-only": "Read-only" };

function isExpired(apiKey: AccountApiKey): boolean {
  return apiKey.expiresAt !== null && Date.parse(apiKey.expiresAt) <= Date.now();
}

/**
 * An account's keys, never the keys themselves, each live one with its Revoke button. Revoked keys are
 * history: hidden, and not counted, unless asked for. A revoked key's button goes away: focus moves to the
 * table rather than being lost.
 */
export function ApiKeyTable({
  label,
  apiKeys,
  onRevoke,
  isBusy,
}: {
  label: string;
  apiKeys: readonly AccountApiKey[];
  /** Answers whether the key was revoked. */
  onRevoke: (apiKey: AccountApiKey) => Promise<boolean>;
  isBusy: boolean;
}) {
  const table = useRef<HTMLElement>(null);
  const [isRevokedShown, setRevokedShown] = useState(false);
  const live = apiKeys.filter((apiKey) => !apiKey.revokedAt);
  const revokedCount = apiKeys.length - live.length;
  const revoke = async (apiKey: AccountApiKey) => {
    const isRevoked = await onRevoke(apiKey);
    if (isRevoked) table.current?.focus();
    return isRevoked;
  };
  return (
    <>
      {revokedCount > 0 && (
        <label className="check">
          <input
            type="checkbox"
            checked={isRevokedShown}
            onChange={(event) => setRevokedShown(event.currentTarget.checked)}
          />{" "}
          Show the {revokedCount} revoked {revokedCount === 1 ? "key" : "keys"}
        </label>
      )}
      <Table
        ref={table}
        label={label}
        caption={`${live.length} live ${live.length === 1 ? "key" : "keys"}`}
        rows={isRevokedShown ? apiKeys : live}
        rowKey={(apiKey) => apiKey.id}
        columns={[
          { header: "Name", cell: (apiKey) => apiKey.name, className: "wrap" },
          { header: "Key", cell: (apiKey) => <code>{apiKey.prefix}…</code> },
          { header: "Access", cell: (apiKey) => SCOPE_LABELS[apiKey.scope] },
          { header: "Created", cell: (apiKey) => formatDate(apiKey.createdAt) },
          { header: "Last used", cell: (apiKey) => formatDate(apiKey.lastUsedAt) },
          {
            header: "Expires",
            cell: (apiKey) =>
              isExpired(apiKey) ? (
                <span className="badge bad">expired {formatDate(apiKey.expiresAt)}</span>
              ) : apiKey.expiresAt ? (
                formatDate(apiKey.expiresAt)
              ) : (
                "never"
              ),
          },
          {
            header: "Status",
            cell: (apiKey) =>
              apiKey.revokedAt ? (
                <span className="badge bad">revoked {formatDate(apiKey.revokedAt)}</span>
              ) : (
                <ConfirmedAction
                  label={`Revoke ${apiKey.name}`}
                  confirmLabel={`Yes, revoke ${apiKey.name}`}
                  warning="Programs using it will be refused."
                  onConfirm={() => revoke(apiKey)}
                  isBusy={isBusy}
                />
              ),
          },
        ]}
      />
    </>
  );
}
