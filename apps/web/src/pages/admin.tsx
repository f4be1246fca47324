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
import { ConfirmedAction } from "../components/confirmed-action";
import { Choices, Field } from "../components/field";
import { ErrorMessage, Loaded, ShownOnce } from "../components/messages";
import { Pager } from "../components/pager";
import { formatDate } from "../format";
import { useAction, useLoad, useOffsetPages } from "../hooks";

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
  const accounts = useOffsetPages(
    PAGE_SIZE,
    (page) => call(adminOperations.listAccounts, { query: { search, ...page } }),
    [search],
  );

  const submitSearch = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSearch(String(new FormData(event.currentTarget).get("search") ?? "") || undefined);
    accounts.pages.setOffset(0);
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
      <Loaded state={accounts} what="accounts">
        {(list) => (
          <>
            <p className="hint" aria-live="polite">
              {list.filteredResults} accounts
            </p>
            <ul className="plain stack">
              {list.accounts.map((account) => (
                <AccountItem key={account.id} account={account} onChanged={() => void accounts.reload()} />
              ))}
            </ul>
            <Pager label="Account pages" pages={accounts.pages} total={list.filteredResults} />
          </>
        )}
      </Loaded>
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
          <Choices name="plan" options={PLANS} defaultValue="standard" />
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
    if (!answer) return false;
    setOutcome(`Revoked ${answer.revoked} API key${answer.revoked === 1 ? "" : "s"}.`);
    onChanged();
    return true;
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
            <Choices name="type" options={CREDIT_BUCKET_TYPES} defaultValue="f_images" />
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
      ) : (
        <span className="row">
          <button type="button" className="secondary" onClick={() => setGranting(true)}>
            Grant credits to {account.email}
          </button>
          <ConfirmedAction
            label={`Revoke the keys of ${account.email}`}
            confirmLabel={`Yes, revoke every key of ${account.email}`}
            warning="Programs using its keys will be refused."
            onConfirm={revoke}
            isBusy={isBusy}
            isDisabled={account.liveApiKeyCount === 0}
          />
        </span>
      )}
      {outcome && <p role="status">{outcome}</p>}
      <ErrorMessage text={error} />
    </li>
  );
}
