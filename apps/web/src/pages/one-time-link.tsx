import { type Session, sessionOperations } from "@imagehub/domain";
import { type FormEvent, useEffect, useRef } from "react";
import { call } from "../api";
import { ErrorMessage } from "../components/messages";
import { NewPasswordFields, readNewPassword } from "../components/new-password";
import { PageHeading } from "../components/page-heading";
import { useAction } from "../hooks";
import { navigate } from "../router";

/** The token travels in the fragment, which no server log records; it is taken out of the address at once. */
function takeToken(): string {
  const token = window.location.hash.slice(1);
  if (token) window.history.replaceState(null, "", window.location.pathname);
  return token;
}

/** What a set-password link's page says: an invitation's welcome, or a forgotten password's reset. */
const PASSWORD_LINKS = {
  invitation: {
    heading: "Welcome to imagehub",
    intro: "Choose the password you will sign in with.",
    button: "Set password and sign in",
  },
  reset: {
    heading: "Choose a new password",
    intro: "Your account is signed out everywhere as the new password is set.",
    button: "Set the new password and sign in",
  },
} as const;

/** An invitation or a password reset: choose a password, and be signed in. */
export function PasswordLinkPage({
  kind,
  onSignedIn,
}: {
  kind: keyof typeof PASSWORD_LINKS;
  onSignedIn: (session: Session) => void;
}) {
  const token = useRef(takeToken());
  const { run, error, isBusy, setError } = useAction();
  const words = PASSWORD_LINKS[kind];

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = readNewPassword(new FormData(event.currentTarget), setError);
    if (password === undefined) return;
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
      <PageHeading>{words.heading}</PageHeading>
      <p>{words.intro}</p>
      <form onSubmit={submit} className="stack">
        <NewPasswordFields />
        <ErrorMessage text={error} />
        <button type="submit" disabled={isBusy || !token.current}>
          {words.button}
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
      <PageHeading>Signing in…</PageHeading>
      <ErrorMessage text={error} />
      {error && <a href="/">Go to the sign-in page</a>}
    </main>
  );
}
