import { type Session, sessionOperations } from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { Field } from "../components/field";
import { ErrorMessage } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { useAction, useLoad } from "../hooks";

type Step = "sign-in" | "sign-up" | "forgot";

const HEADINGS: Record<Step, string> = {
  "sign-in": "Sign in to imagehub",
  "sign-up": "Create an imagehub account",
  forgot: "Reset a forgotten password",
};

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const { data: settings } = useLoad(() => call(sessionOperations.webAreaSettings));
  const [step, setStep] = useState<Step>("sign-in");
  const isSigningUp = step === "sign-up";
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
      <PageHeading>{HEADINGS[step]}</PageHeading>
      {step === "forgot" ? (
        <ForgotPassword isMailConfigured={settings?.isMailConfigured ?? false} />
      ) : (
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
      )}
      <p className="row">
        {step !== "sign-in" && (
          <button type="button" className="link" onClick={() => setStep("sign-in")}>
            Back to signing in
          </button>
        )}
        {step === "sign-in" && (
          <button type="button" className="link" onClick={() => setStep("forgot")}>
            Forgot your password?
          </button>
        )}
        {settings?.isSignUpOpen && step === "sign-in" && (
          <button type="button" className="link" onClick={() => setStep("sign-up")}>
            No account yet? Create one
          </button>
        )}
      </p>
      <p className="hint">
        No password yet? Ask the operator for an invitation link. The API's reference is at{" "}
        <a href="/doc">/doc</a>.
      </p>
    </main>
  );
}

/** A reset link by mail where the server can send mail; otherwise an admin issues one. */
function ForgotPassword({ isMailConfigured }: { isMailConfigured: boolean }) {
  const [sentTo, setSentTo] = useState<string | undefined>(undefined);
  const { run, error, isBusy } = useAction();
  if (!isMailConfigured) {
    return (
      <p>
        This server sends no mail. Ask an admin of imagehub for a password reset link: it signs your account
        out everywhere and lets you choose a new password.
      </p>
    );
  }
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email"));
    const isSent = await run(() =>
      call(sessionOperations.forgotPassword, { body: { email } }).then(() => true),
    );
    if (isSent) setSentTo(email);
  };
  return (
    <>
      <form onSubmit={submit} className="stack" aria-label="Mail me a reset link">
        <Field label="Email of your account">
          <input name="email" type="email" autoComplete="email" required maxLength={320} />
        </Field>
        <ErrorMessage text={error} />
        <button type="submit" disabled={isBusy}>
          Mail me a reset link
        </button>
      </form>
      {sentTo && (
        <p role="status">
          If {sentTo} has an account, a link to choose a new password is on its way. It works once, for two
          hours.
        </p>
      )}
    </>
  );
}
