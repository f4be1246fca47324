import { type Session, sessionOperations } from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { Field } from "../components/field";
import { ErrorMessage } from "../components/messages";
import { useAction, useLoad } from "../hooks";

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const { data: settings } = useLoad(() => call(sessionOperations.webAreaSettings));
  const [isSigningUp, setSigningUp] = useState(false);
  const { run, error, isBusy } = useAction();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    const session = await run(() =>
      isSigningUp
        ? call(sessionOperations.signUp, {
            body: { email, password, name: String(form.get("name") || "") || undefined },
          })
        : call(sessionOperations.signIn, { body: { email, password } }),
    );
    if (session) onSignedIn(session);
  };

  return (
    <main className="narrow" id="main">
      <h1>{isSigningUp ? "Create an imagehub account" : "Sign in to imagehub"}</h1>
      <form onSubmit={submit} className="stack">
        {isSigningUp && (
          <Field label="Name">
            <input name="name" autoComplete="name" maxLength={200} />
          </Field>
        )}
        <Field label="Email">
          <input name="email" type="email" autoComplete="email" required />
        </Field>
        <Field label="Password" hint={isSigningUp ? "At least 10 characters." : undefined}>
          <input
            name="password"
            type="password"
            autoComplete={isSigningUp ? "new-password" : "current-password"}
            minLength={isSigningUp ? 10 : undefined}
            required
          />
        </Field>
        <ErrorMessage text={error} />
        <button type="submit" disabled={isBusy}>
          {isSigningUp ? "Create account" : "Sign in"}
        </button>
      </form>
      {settings?.isSignUpOpen && (
        <p>
          <button type="button" className="link" onClick={() => setSigningUp(!isSigningUp)}>
            {isSigningUp ? "I have an account: sign in" : "No account yet? Create one"}
          </button>
        </p>
      )}
      <p className="hint">
        No password yet? Ask the operator for an invitation link. The API's reference is at{" "}
        <a href="/doc">/doc</a>.
      </p>
    </main>
  );
}
