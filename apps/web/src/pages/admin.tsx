import {
  type AccountApiKey,
  type AdminAccount,
  adminOperations,
  CREDIT_BUCKET_TYPES,
  type CreditBucketType,
  type Invitation,
  type IssuedLink,
  PLANS,
  type Plan,
} from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ApiKeyTable } from "../components/api-key-table";
import { ConfirmedAction } from "../components/confirmed-action";
import { Choices, Field } from "../components/field";
import { ErrorMessage, Loaded, ShownOnce } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { Pager } from "../components/pager";
import { Table } from "../components/table";
import { formatDate } from "../format";
import { useAction, useLoad, useOffsetPages } from "../hooks";
import { withLocalDates } from "../human-messages";

const PAGE_SIZE = 20;
const AUDIT_PAGE_SIZE = 20;

const MAIL_NOTES: Record<IssuedLink["mail"]["status"], string> = {
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

  // Every change an admin makes shows in the audit log at once: it loads again from its first page.
  const [auditVersion, setAuditVersion] = useState(0);
  const changed = () => {
    void accounts.reload();
    setAuditVersion((version) => version + 1);
  };

  const submitSearch = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSearch(String(new FormData(event.currentTarget).get("search") ?? "") || undefined);
    accounts.pages.setOffset(0);
  };

  return (
    <>
      <PageHeading>Admin</PageHeading>
      {settings.data?.queueDashboardPath && (
        <p>
          Jobs and queues: <a href={settings.data.queueDashboardPath}>open the queue dashboard</a> (asks for
          the admin token).
        </p>
      )}
      <InviteForm onInvited={changed} />
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
                <AccountItem key={account.id} account={account} onChanged={changed} />
              ))}
            </ul>
            <Pager label="Account pages" pages={accounts.pages} total={list.filteredResults} />
          </>
        )}
      </Loaded>
      <AuditLog key={auditVersion} />
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
  const [areKeysShown, setKeysShown] = useState(false);
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
    onChanged();
  };
  const [resetLink, setResetLink] = useState<IssuedLink | undefined>(undefined);
  const params = { accountId: account.id };
  /** Runs an admin action on the account; `done` says what became of it. */
  const act = async (action: () => Promise<unknown>, done: string) => {
    const isDone = await run(() => action().then(() => true));
    if (!isDone) return false;
    setOutcome(done);
    onChanged();
    return true;
  };
  const issueReset = async () => {
    const issued = await run(() => call(adminOperations.issuePasswordReset, { params }));
    if (!issued) return false;
    setResetLink(issued);
    onChanged();
    return true;
  };
  const setAdmin = async (isAdmin: boolean) => {
    const answer = await run(() =>
      call(adminOperations.setAccountAdmin, { params: { accountId: account.id }, body: { isAdmin } }),
    );
    if (!answer) return false;
    setOutcome(answer.isAdmin ? "Now an admin." : "No longer an admin.");
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
        {account.isDisabled && <span className="badge bad">disabled</span>}
        <span className={`badge ${account.hasPassword ? "ok" : "warn"}`}>{accessOf(account)}</span>
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
          <button
            type="button"
            className="secondary"
            aria-expanded={areKeysShown}
            onClick={() => setKeysShown(!areKeysShown)}
          >
            {areKeysShown ? "Hide" : "Show"} the API keys of {account.email}
          </button>
          <ConfirmedAction
            label={`${account.isAdmin ? "Unmake" : "Make"} ${account.email} an admin`}
            confirmLabel={`Yes, ${account.isAdmin ? "unmake" : "make"} ${account.email} an admin`}
            warning={
              account.isAdmin
                ? "The admin area closes to the account."
                : "The admin area opens to the account."
            }
            onConfirm={() => setAdmin(!account.isAdmin)}
            isBusy={isBusy}
          />
          <ConfirmedAction
            label={`Issue a password reset link for ${account.email}`}
            confirmLabel={`Yes, sign ${account.email} out and issue the link`}
            warning="Every session of the account ends now."
            onConfirm={issueReset}
            isBusy={isBusy}
          />
          {account.hasPendingInvitation && (
            <ConfirmedAction
              label={`Cancel the invitation of ${account.email}`}
              confirmLabel={`Yes, cancel the invitation of ${account.email}`}
              warning="Its link stops working."
              onConfirm={() =>
                act(() => call(adminOperations.cancelInvitation, { params }), "Invitation cancelled.")
              }
              isBusy={isBusy}
            />
          )}
          <ConfirmedAction
            label={`${account.isDisabled ? "Enable" : "Disable"} ${account.email}`}
            confirmLabel={`Yes, ${account.isDisabled ? "enable" : "disable"} ${account.email}`}
            warning={
              account.isDisabled
                ? "Its sign-ins and API keys work again."
                : "Its sessions end; its sign-ins and API keys are refused until enabled."
            }
            onConfirm={() =>
              act(
                () =>
                  call(adminOperations.setAccountDisabled, {
                    params,
                    body: { isDisabled: !account.isDisabled },
                  }),
                account.isDisabled ? "Enabled." : "Disabled: its sessions have ended.",
              )
            }
            isBusy={isBusy}
          />
          <ConfirmedAction
            label={`Delete ${account.email}`}
            confirmLabel={`Yes, delete ${account.email} and all it owns`}
            warning="Its email, password, keys, sessions and webhooks go; this cannot be undone."
            onConfirm={() => act(() => call(adminOperations.deleteAccount, { params }), "Deleted.")}
            isBusy={isBusy}
          />
        </span>
      )}
      {outcome && <p role="status">{outcome}</p>}
      {resetLink && (
        <>
          <ShownOnce
            label={`The password reset link for ${account.email} (valid until ${formatDate(resetLink.expiresAt)}).`}
            value={resetLink.link}
          />
          <p role="status" className={resetLink.mail.status === "failed" ? "error" : "hint"}>
            {MAIL_NOTES[resetLink.mail.status]}
          </p>
        </>
      )}
      <ErrorMessage text={error} />
      {areKeysShown && <AccountApiKeys account={account} onChanged={onChanged} />}
    </li>
  );
}

/** How the account signs in: a link-only account (the embedded demo) is not an invitation waiting. */
function accessOf(account: AdminAccount): string {
  if (account.hasPassword) return "password set";
  return account.hasPendingInvitation ? "invitation pending" : "no password: signs in by link";
}

function AccountApiKeys({ account, onChanged }: { account: AdminAccount; onChanged: () => void }) {
  const params = { accountId: account.id };
  const apiKeys = useLoad(() => call(adminOperations.listAccountApiKeysAsAdmin, { params }), [account.id]);
  const { run, error, isBusy } = useAction();
  const revoke = async (apiKey: AccountApiKey) => {
    const revoked = await run(() =>
      call(adminOperations.revokeAccountApiKeyAsAdmin, { params: { ...params, apiKeyId: apiKey.id } }),
    );
    await apiKeys.reload();
    if (revoked) onChanged();
    return revoked !== undefined;
  };
  return (
    <>
      <ErrorMessage text={error} />
      <Loaded state={apiKeys} what={`the API keys of ${account.email}`}>
        {(data) => (
          <ApiKeyTable
            label={`API keys of ${account.email}`}
            apiKeys={data.apiKeys}
            onRevoke={revoke}
            isBusy={isBusy}
          />
        )}
      </Loaded>
    </>
  );
}

/** What the audit log's actions say, in words; an unknown one shows as it is. */
const ACTION_LABELS: Record<string, string> = {
  "account.created": "created the account",
  "account.invited": "invited",
  "account.admin_granted": "made an admin",
  "account.admin_revoked": "unmade an admin",
  "account.limits_changed": "changed the limits",
  "api_key.created": "created an API key",
  "api_key.revoked": "revoked an API key",
  "credits.granted": "granted credits",
  "account.disabled": "disabled the account",
  "account.enabled": "enabled the account",
  "account.deleted": "deleted the account",
  "account.invitation_cancelled": "cancelled the invitation",
  "account.password_reset_issued": "issued a password reset link",
  "account.password_set": "set a password",
  "account.password_changed": "changed the password",
};

function AuditLog() {
  const audit = useOffsetPages(AUDIT_PAGE_SIZE, (page) =>
    call(adminOperations.listAuditLog, { query: page }),
  );
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <p className="hint">Who changed which account, newest first.</p>
      <Loaded state={audit} what="the audit log">
        {({ entries, filteredResults }) => (
          <>
            <Table
              label="Audit log"
              rows={entries}
              rowKey={(entry) => entry.id}
              columns={[
                { header: "When", cell: (entry) => formatDate(entry.createdAt) },
                { header: "Who", cell: (entry) => entry.actorEmail ?? entry.actor, className: "wrap" },
                { header: "What", cell: (entry) => ACTION_LABELS[entry.action] ?? entry.action },
                { header: "To whom", cell: (entry) => entry.accountEmail ?? "—", className: "wrap" },
                {
                  header: "Details",
                  cell: (entry) => <DetailsOf details={entry.details} />,
                  className: "wrap",
                },
              ]}
            />
            <Pager label="Audit log pages" pages={audit.pages} total={filteredResults} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function DetailsOf({ details }: { details: Record<string, unknown> }) {
  const shown = Object.entries(details).filter(([, value]) => value !== null && value !== undefined);
  return (
    <>
      {shown
        .map(([name, value]) =>
          withLocalDates(`${name}: ${typeof value === "object" ? JSON.stringify(value) : value}`),
        )
        .join(", ") || "—"}
    </>
  );
}
