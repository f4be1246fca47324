import type { AccountApiKey } from "@imagehub/domain";
import { useRef } from "react";
import { formatDate } from "../format";
import { ConfirmedAction } from "./confirmed-action";
import { Table } from "./table";

/**
 * An account's keys, never the keys themselves, each live one with its Revoke button. A revoked key's
 * button goes away: focus moves to the table rather than being lost.
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
  const revoke = async (apiKey: AccountApiKey) => {
    const isRevoked = await onRevoke(apiKey);
    if (isRevoked) table.current?.focus();
    return isRevoked;
  };
  return (
    <Table
      ref={table}
      label={label}
      caption={`${apiKeys.length} keys`}
      rows={apiKeys}
      rowKey={(apiKey) => apiKey.id}
      columns={[
        { header: "Name", cell: (apiKey) => apiKey.name },
        { header: "Key", cell: (apiKey) => <code>{apiKey.prefix}…</code> },
        { header: "Created", cell: (apiKey) => formatDate(apiKey.createdAt) },
        { header: "Last used", cell: (apiKey) => formatDate(apiKey.lastUsedAt) },
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
  );
}
