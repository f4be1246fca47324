import { type AccountSession, type Session, sessionOperations } from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ConfirmedAction } from "../components/confirmed-action";
import { Field } from "../components/field";
import { ErrorMessage, Loaded } from "../components/messages";
import { NewPasswordFields, readNewPassword } from "../components/new-password";
import { PageHeading } from "../components/page-heading";
import { Table } from "../components/table";
import { formatDate } from "../format";
import { useAction, useLoad } from "../hooks";

export function OverviewPage({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { run, error, isBusy } = useAction();
  const signOutEverywhere = async () => {
    await run(() => call(sessionOperations.signOutEverywhere));
    onSignedOut();
  };
  return (
    <>
      <PageHeading title="Account">Your account</PageHeading>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{session.account.email}</dd>
        <dt>Name</dt>
        <dd>{session.account.name ?? "—"}</dd>
        <dt>Plan</dt>
        <dd>{session.account.plan}</dd>
      </dl>
      <p>
        Programs use the API with an API key; its reference is at <a href="/doc">/doc</a>.
      </p>
      <PasswordForm hasPassword={session.account.hasPassword} />
      <h2>Sessions</h2>
      <SessionList />
      <p>
        Signed in on another device you no longer have? End every session of this account, this one included.
      </p>
      <ErrorMessage text={error} />
      <button type="button" onClick={() => void signOutEverywhere()} disabled={isBusy}>
        Sign out everywhere
      </button>
    </>
  );
}

/** Sets a first password (an account that signed in by a link) or changes it, given the current one. */
function PasswordForm({ hasPassword: hadPassword }: { hasPassword: boolean }) {
  const [hasPassword, setHasPassword] = useState(hadPassword);
  const [outcome, setOutcome] = useState<string | undefined>(undefined);
  const { run, error, isBusy, setError } = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setOutcome(undefined);
    const newPassword = readNewPassword(form, setError);
    if (newPassword === undefined) return;
    const currentPassword = hasPassword ? String(form.get("current")) : undefined;
    const isChanged = await run(() =>
      call(sessionOperations.changePassword, { body: { currentPassword, newPassword } }).then(() => true),
    );
    if (!isChanged) return;
    formElement.reset();
    setOutcome(
      hasPassword
        ? "Password changed. Your other sessions have ended."
        : "Password set: you can sign in with it from now on.",
    );
    setHasPassword(true);
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{hasPassword ? "Change your password" : "Set a password"}</h2>
      {!hasPassword && (
        <p>This account signs in by one-time links only. Set a password to sign in with your email.</p>
      )}
      <form onSubmit={submit} className="stack narrow-form" aria-labelledby="password-heading">
        {hasPassword && (
          <Field label="Current password">
            <input name="current" type="password" autoComplete="current-password" required />
          </Field>
        )}
        <NewPasswordFields />
        <ErrorMessage text={error} />
        <div>
          <button type="submit" disabled={isBusy}>
            {hasPassword ? "Change password" : "Set password"}
          </button>
        </div>
      </form>
      {outcome && <p role="status">{outcome}</p>}
    </section>
  );
}

/** Where the account is signed in, each session with its own "Sign out". */
function SessionList() {
  const sessions = useLoad(() => call(sessionOperations.listSessions));
  const { run, error, isBusy } = useAction();
  const end = async (session: AccountSession) => {
    const ended = await run(() =>
      call(sessionOperations.endSession, { params: { sessionId: session.id } }).then(() => true),
    );
    await sessions.reload();
    return ended === true;
  };
  return (
    <>
      <ErrorMessage text={error} />
      <Loaded state={sessions} what="your sessions">
        {({ sessions: list }) => (
          <Table
            label="Your sessions"
            caption={`Signed in ${list.length} ${list.length === 1 ? "time" : "times"}`}
            rows={list}
            rowKey={(session) => session.id}
            columns={[
              { header: "Browser", cell: (session) => browserOf(session.userAgent), className: "wrap" },
              { header: "Signed in", cell: (session) => formatDate(session.createdAt) },
              { header: "Ends", cell: (session) => formatDate(session.expiresAt) },
              {
                header: "Sign out",
                cell: (session) =>
                  session.isCurrent ? (
                    <span className="badge ok">this session</span>
                  ) : (
                    <ConfirmedAction
                      label={`Sign out the session of ${formatDate(session.createdAt)}`}
                      confirmLabel="Yes, sign it out"
                      onConfirm={() => end(session)}
                      isBusy={isBusy}
                    />
                  ),
              },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

/** A user agent string as a reader recognises it: "Chrome 131 on Linux". */
function browserOf(userAgent: string | null): string {
  if (!userAgent) return "Unknown browser";
  const browser = /(Edg|Firefox|Chrome|Safari)\/(\d+)/.exec(userAgent);
  const system = /(Windows|Android|iPhone|iPad|Mac OS X|Linux)/.exec(userAgent);
  const name = browser ? `${browser[1] === "Edg" ? "Edge" : browser[1]} ${browser[2]}` : "A browser";
  return system ? `${name} on ${system[1] === "Mac OS X" ? "macOS" : system[1]}` : name;
}
