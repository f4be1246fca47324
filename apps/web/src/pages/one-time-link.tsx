import { type Session, sessionOperations } from "@imagehub/domain";
import { type FormEvent, useEffect, useRef } from "react";
import { call } from "../api";
import { Field } from "../components/field";
import { ErrorMessage } from "../components/messages";
import { useAction } from "../hooks";
import { navigate } from "../router";

/** The token travels in the fragment, which no server log records; it is taken out of the address at once. */
function takeToken(): string {
  const token = window.location.hash.slice(1);
  if (token) window.history.replaceState(null, "", window.location.pathname);
  return token;
}

/** An invitation: choose a password, and be signed in. */
export function WelcomePage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const token = useRef(takeToken());
  const { run, error, isBusy, setError } = useAction();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password"));
    if (password !== String(form.get("confirmation"))) {
      setError("The two passwords differ.");
      return;
    }
    const session = await run(() =>
      call(sessionOperations.redeemLink, { body: { token: token.current, password } }),
    );
    if (session) {
      onSignedIn(session);
      navigate("/", { replace: true });
    }
  };

  return (
    <main className="narrow" id="main">
      <h1>Welcome to imagehub</h1>
      <p>Choose the password you will sign in with.</p>
      <form onSubmit={submit} className="stack">
        <Field label="New password" hint="At least 10 characters.">
          <input name="password" type="password" autoComplete="new-password" minLength={10} required />
        </Field>
        <Field label="The same password again">
          <input name="confirmation" type="password" autoComplete="new-password" minLength={10} required />
        </Field>
        <ErrorMessage text={error} />
        <button type="submit" disabled={isBusy || !token.current}>
          Set password and sign in
        </button>
      </form>
    </main>
  );
}

/** A one-time sign-in link (the embedded demo account's): signs in as soon as it opens. */
export function SignInLinkPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const token = useRef(takeToken());
  const { run, error } = useAction();
  useEffect(() => {
    void run(() => call(sessionOperations.redeemLink, { body: { token: token.current } })).then((session) => {
      if (!session) return;
      onSignedIn(session);
      navigate("/", { replace: true });
    });
  }, [run, onSignedIn]);
  return (
    <main className="narrow" id="main">
      <h1>Signing in…</h1>
      <ErrorMessage text={error} />
      {error && <a href="/">Go to the sign-in page</a>}
    </main>
  );
}
