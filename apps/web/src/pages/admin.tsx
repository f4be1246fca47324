import {
  type AdminAccount,
  adminOperations,
  CREDIT_BUCKET_TYPES,
  type CreditBucketType,
  type Invitation,
  PLANS,
  type Plan,
} from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ErrorMessage, Field, formatDate, Loading, Pager, ShownOnce } from "../components";
import { useAction, useLoad } from "../hooks";

const PAGE_SIZE = 20;

const MAIL_NOTES: Record<Invitation["mail"]["status"], string> = {
  sent: "It was mailed to the account's owner too.",
  failed: "The mail server refused the mail: hand the link over yourself.",
  "not-configured": "No mail server is set (SMTP_URL): hand the link over yourself.",
};

/** The admin area: accounts, invitations, credits and keys, as the admin CLI does them. */
export function AdminPage() {
  const settings = useLoad(() => call(adminOperations.adminSettings));
  const [search, setSearch] = useState<string | undefined>(undefined);
  const [offset, setOffset] = useState(0);
  const accounts = useLoad(
    () => call(adminOperations.listAccounts, { query: { search, limit: PAGE_SIZE, offset } }),
    [search, offset],
  );

  const submitSearch = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSearch(String(new FormData(event.currentTarget).get("search") ?? "") || undefined);
    setOffset(0);
  };

  return (
    <>
      <h1>Admin</h1>
      {settings.data?.queueDashboardPath && (
        <p>
          Jobs and queues: <a href={settings.data.queueDashboardPath}>open the queue dashboard</a> (asks for
          the admin token).
        </p>
      )}
      <InviteForm onInvited={() => void accounts.reload()} />
      <h2>Accounts</h2>
      <form onSubmit={submitSearch} className="row" aria-label="Search accounts">
        <Field label="Email or name contains">
          <input name="search" type="search" maxLength={200} />
        </Field>
        <button type="submit">Search accounts</button>
      </form>
      <ErrorMessage text={accounts.error} />
      {!accounts.data ? (
        <Loading what="accounts" />
      ) : (
        <>
          <p className="hint" aria-live="polite">
            {accounts.data.filteredResults} accounts
          </p>
          <ul className="plain stack">
            {accounts.data.accounts.map((account) => (
              <AccountItem key={account.id} account={account} onChanged={() => void accounts.reload()} />
            ))}
          </ul>
          <Pager
            label="Account pages"
            offset={offset}
            limit={PAGE_SIZE}
            total={accounts.data.filteredResults}
            onChange={setOffset}
          />
        </>
      )}
    </>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [invitation, setInvitation] = useState<Invitation | undefined>(undefined);
  const { run, error, isBusy } = useAction();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const credits: Partial<Record<CreditBucketType, number>> = {};
    for (const type of ["f_images", "f_images_print"] as const) {
      const amount = Number(form.get(type) || 0);
      if (amount > 0) credits[type] = amount;
    }
    const answer = await run(() =>
      call(adminOperations.inviteAccount, {
        body: {
          email: String(form.get("email")),
          name: String(form.get("name") ?? "") || undefined,
          plan: String(form.get("plan")) as Plan,
          isAdmin: form.get("isAdmin") === "on",
          credits,
        },
      }),
    );
    if (!answer) return;
    setInvitation(answer);
    formElement.reset();
    onInvited();
  };

  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite an account</h2>
      <form onSubmit={submit} className="row" aria-labelledby="invite-heading">
        <Field label="Email of the invitee">
          <input name="email" type="email" required maxLength={320} />
        </Field>
        <Field label="Name (optional)">
          <input name="name" maxLength={200} />
        </Field>
        <Field label="Plan">
          <select name="plan" defaultValue="standard">
            {PLANS.map((plan) => (
              <option key={plan}>{plan}</option>
            ))}
          </select>
        </Field>
        <Field label="f_images credits">
          <input name="f_images" type="number" min={0} max={1_000_000} defaultValue={10} />
        </Field>
        <Field label="f_images_print credits">
          <input name="f_images_print" type="number" min={0} max={1_000_000} defaultValue={3} />
        </Field>
        <label className="check">
          <input name="isAdmin" type="checkbox" /> Admin
        </label>
        <button type="submit" disabled={isBusy}>
          Invite
        </button>
      </form>
      <ErrorMessage text={error} />
      {invitation && (
        <>
          <ShownOnce
            label={`The one-time link for ${invitation.email} (valid until ${formatDate(invitation.expiresAt)}).`}
            value={invitation.link}
          />
          <p role="status" className={invitation.mail.status === "failed" ? "error" : "hint"}>
            {MAIL_NOTES[invitation.mail.status]}
            {invitation.mail.detail && ` (${invitation.mail.detail})`}
          </p>
        </>
      )}
    </section>
  );
}

function AccountItem({ account, onChanged }: { account: AdminAccount; onChanged: () => void }) {
  const [isGranting, setGranting] = useState(false);
  const [isConfirmingRevoke, setConfirmingRevoke] = useState(false);
  const [outcome, setOutcome] = useState<string | undefined>(undefined);
  const { run, error, isBusy } = useAction();

  const grant = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const type = String(form.get("type")) as CreditBucketType;
    const amount = Number(form.get("amount"));
    const answer = await run(() =>
      call(adminOperations.grantAccountCredits, {
        params: { accountId: account.id },
        body: { type, amount, note: String(form.get("note") ?? "") || undefined },
      }),
    );
    if (!answer) return;
    const bucket = answer.credits.find((candidate) => candidate.type === type);
    setOutcome(
      `${amount > 0 ? "Granted" : "Took away"} ${Math.abs(amount)} ${type}: ${bucket?.credit} left.`,
    );
    setGranting(false);
  };
  const revoke = async () => {
    const answer = await run(() =>
      call(adminOperations.revokeAccountApiKeys, { params: { accountId: account.id } }),
    );
    setConfirmingRevoke(false);
    if (!answer) return;
    setOutcome(`Revoked ${answer.revoked} API key${answer.revoked === 1 ? "" : "s"}.`);
    onChanged();
  };

  return (
    <li className="card" aria-label={account.email}>
      <strong className="wrap">{account.email}</strong>
      <span className="hint">
        {account.name ?? "no name"} · {account.plan} · created {formatDate(account.createdAt)}
      </span>
      <span className="row">
        {account.isAdmin && <span className="badge warn">admin</span>}
        <span className={`badge ${account.hasPassword ? "ok" : "warn"}`}>
          {account.hasPassword ? "password set" : "invitation pending"}
        </span>
        <span className="badge ok">{account.liveApiKeyCount} live API keys</span>
      </span>
      {isGranting ? (
        <form onSubmit={grant} className="row" aria-label={`Grant credits to ${account.email}`}>
          <Field label="Bucket">
            <select name="type" defaultValue="f_images">
              {CREDIT_BUCKET_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </Field>
          <Field label="Amount" hint="Negative takes away.">
            <input name="amount" type="number" required min={-1_000_000} max={1_000_000} step={1} />
          </Field>
          <Field label="Note (optional)">
            <input name="note" maxLength={200} />
          </Field>
          <button type="submit" disabled={isBusy}>
            Grant
          </button>
          <button type="button" className="secondary" onClick={() => setGranting(false)}>
            Cancel
          </button>
        </form>
      ) : isConfirmingRevoke ? (
        <div className="row">
          <span>Programs using its keys will be refused.</span>
          <button type="button" className="danger" onClick={() => void revoke()} disabled={isBusy}>
            Yes, revoke every key of {account.email}
          </button>
          <button type="button" className="secondary" onClick={() => setConfirmingRevoke(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <span className="row">
          <button type="button" className="secondary" onClick={() => setGranting(true)}>
            Grant credits to {account.email}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => setConfirmingRevoke(true)}
            disabled={account.liveApiKeyCount === 0}
          >
            Revoke the keys of {account.email}
          </button>
        </span>
      )}
      {outcome && <p role="status">{outcome}</p>}
      <ErrorMessage text={error} />
    </li>
  );
}
