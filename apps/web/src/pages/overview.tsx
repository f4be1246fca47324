import { type Session, sessionOperations } from "@imagehub/domain";
import { call } from "../api";
import { ErrorMessage } from "../components/messages";
import { useAction } from "../hooks";

export function OverviewPage({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { run, error, isBusy } = useAction();
  const signOutEverywhere = async () => {
    await run(() => call(sessionOperations.signOutEverywhere));
    onSignedOut();
  };
  return (
    <>
      <h1>Your account</h1>
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
      <h2>Sessions</h2>
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
