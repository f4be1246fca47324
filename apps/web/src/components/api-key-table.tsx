import type { AccountApiKey } from "@imagehub/domain";
import type { ReactNode } from "react";
import { formatDate } from "../format";
import { Table } from "./table";

/** An account's keys, never the keys themselves; a live key's status cell is `revokeCell`'s. */
export function ApiKeyTable({
  label,
  apiKeys,
  revokeCell,
}: {
  label: string;
  apiKeys: readonly AccountApiKey[];
  revokeCell: (apiKey: AccountApiKey) => ReactNode;
}) {
  return (
    <Table
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
              revokeCell(apiKey)
            ),
        },
      ]}
    />
  );
}
