import { accountCatalogueOperations, type CreditLedgerEntry } from "@imagehub/domain";
import { useState } from "react";
import { call } from "../api";
import { ErrorMessage, formatDate, Loading, ScrollingTable } from "../components";
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
      <h1>Credits</h1>
      <ErrorMessage text={buckets.error} />
      {!buckets.data ? (
        <Loading what="your credits" />
      ) : (
        <ScrollingTable label="Credit buckets">
          <thead>
            <tr>
              <th scope="col">Bucket</th>
              <th scope="col">Left</th>
              <th scope="col">Each period</th>
            </tr>
          </thead>
          <tbody>
            {buckets.data.credits.map((bucket) => (
              <tr key={bucket.type}>
                <td>
                  <code>{bucket.type}</code>
                </td>
                <td>{bucket.unlimited ? "unlimited" : bucket.credit}</td>
                <td>{bucket.unlimited ? "—" : bucket.creditTotal}</td>
              </tr>
            ))}
          </tbody>
        </ScrollingTable>
      )}
      <h2>Ledger</h2>
      <p className="hint">Every change of your credits, newest first.</p>
      <ErrorMessage text={ledger.error} />
      {!ledger.data ? (
        <Loading what="the ledger" />
      ) : (
        <>
          <ScrollingTable label="Credit ledger">
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Bucket</th>
                <th scope="col">Change</th>
                <th scope="col">Reason</th>
                <th scope="col">About</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.entries.map((entry) => (
                <tr key={entry.id}>
                  <td>{formatDate(entry.createdAt)}</td>
                  <td>
                    <code>{entry.type}</code>
                  </td>
                  <td>{entry.change > 0 ? `+${entry.change}` : entry.change}</td>
                  <td>{REASON_LABELS[entry.reason]}</td>
                  <td className="wrap">{entry.reference ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
          {ledger.data.entries.length === 0 && <p>No change yet.</p>}
          {(cursors.length > 1 || ledger.data.nextCursor) && (
            <nav className="pager" aria-label="Ledger pages">
              <button
                type="button"
                className="secondary"
                disabled={cursors.length === 1}
                onClick={() => setCursors(cursors.slice(0, -1))}
              >
                Newer entries
              </button>
              <button
                type="button"
                className="secondary"
                disabled={!ledger.data.nextCursor}
                onClick={() => setCursors([...cursors, ledger.data?.nextCursor ?? undefined])}
              >
                Older entries
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}
