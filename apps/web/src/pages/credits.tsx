import { accountCatalogueOperations, type CreditLedgerEntry } from "@imagehub/domain";
import { useState } from "react";
import { call } from "../api";
import { Loaded } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { PagerNav } from "../components/pager";
import { Table } from "../components/table";
import { formatDate } from "../format";
import { useLoad } from "../hooks";

const LEDGER_PAGE_SIZE = 20;

const REASON_LABELS: Record<CreditLedgerEntry["reason"], string> = {
  grant: "Granted",
  purchase: "Image bought",
  generation: "Generation",
  refund: "Refund",
  renewal: "Monthly renewal",
  adjustment: "Adjustment",
};

export function CreditsPage() {
  const buckets = useLoad(() => call(accountCatalogueOperations.getAccountCredits));
  // The cursors of the pages before this one: the ledger pages backwards by the last entry seen.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const before = cursors.at(-1);
  const ledger = useLoad(
    () =>
      call(accountCatalogueOperations.listAccountCreditLedger, {
        query: { limit: LEDGER_PAGE_SIZE, before },
      }),
    [before],
  );

  return (
    <>
      <PageHeading>Credits</PageHeading>
      <Loaded state={buckets} what="your credits">
        {({ credits }) => (
          <Table
            label="Credit buckets"
            rows={credits}
            rowKey={(bucket) => bucket.type}
            columns={[
              { header: "Bucket", cell: (bucket) => <code>{bucket.type}</code> },
              { header: "Left", cell: (bucket) => (bucket.unlimited ? "unlimited" : bucket.credit) },
              { header: "Each period", cell: (bucket) => (bucket.unlimited ? "—" : bucket.creditTotal) },
            ]}
          />
        )}
      </Loaded>
      <h2>Ledger</h2>
      <p className="hint">Every change of your credits, newest first.</p>
      <Loaded state={ledger} what="the ledger">
        {({ entries, nextCursor }) => (
          <>
            <Table
              label="Credit ledger"
              rows={entries}
              rowKey={(entry) => entry.id}
              columns={[
                { header: "Date", cell: (entry) => formatDate(entry.createdAt) },
                { header: "Bucket", cell: (entry) => <code>{entry.type}</code> },
                { header: "Change", cell: (entry) => (entry.change > 0 ? `+${entry.change}` : entry.change) },
                { header: "Reason", cell: (entry) => REASON_LABELS[entry.reason] },
                { header: "About", cell: (entry) => entry.reference ?? "—", className: "wrap" },
              ]}
            />
            {entries.length === 0 && <p>No change yet.</p>}
            <PagerNav
              label="Ledger pages"
              previous={{
                label: "Newer entries",
                go: cursors.length > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined,
              }}
              next={{
                label: "Older entries",
                go: nextCursor ? () => setCursors([...cursors, nextCursor]) : undefined,
              }}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
