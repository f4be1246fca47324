import { accountOperations, type Session } from "@imagehub/domain";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { ApiError, call, setSessionHandlers } from "./api";
import { Loading } from "./components";
import { ApiKeysPage } from "./pages/api-keys";
import { SignInLinkPage, WelcomePage } from "./pages/one-time-link";
import { OverviewPage } from "./pages/overview";
import { SignInPage } from "./pages/sign-in";
import { Link, navigate, usePath } from "./router";

interface Page {
  path: string;
  title: string;
  isAdminOnly?: boolean;
  render: (session: Session, signedOut: () => void) => ReactNode;
}

const PAGES: Page[] = [
  {
    path: "/",
    title: "Account",
    render: (session, signedOut) => <OverviewPage session={session} onSignedOut={signedOut} />,
  },
  { path: "/keys", title: "API keys", render: () => <ApiKeysPage /> },
];

export function App() {
  const path = usePath();
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const signedOut = useCallback(() => setSession(null), []);
  const signedIn = useCallback((next: Session) => setSession(next), []);

  useEffect(() => {
    call(accountOperations.getSession).then(setSession, (error: unknown) => {
      if (error instanceof ApiError && error.statusCode === 401) setSession(null);
    });
  }, []);
  useEffect(() => {
    if (session) setSessionHandlers(session.csrfToken, signedOut);
  }, [session, signedOut]);

  if (path === "/welcome") return <WelcomePage onSignedIn={signedIn} />;
  if (path === "/link") return <SignInLinkPage onSignedIn={signedIn} />;
  if (session === undefined) return <Loading what="your account" />;
  if (session === null) return <SignInPage onSignedIn={signedIn} />;

  const pages = PAGES.filter((page) => !page.isAdminOnly || session.account.isAdmin);
  const page = pages.find((candidate) => candidate.path === path);
  const signOut = async () => {
    await call(accountOperations.signOut).catch(() => undefined);
    setSession(null);
    navigate("/", { replace: true });
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">imagehub</span>
        <nav aria-label="Account">
          <ul>
            {pages.map((candidate) => (
              <li key={candidate.path}>
                <Link href={candidate.path} aria-current={candidate.path === path ? "page" : undefined}>
                  {candidate.title}
                </Link>
              </li>
            ))}
            <li>
              <a href="/doc">API reference</a>
            </li>
          </ul>
        </nav>
        <span className="who">{session.account.email}</span>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main">
        {page ? (
          page.render(session, signedOut)
        ) : (
          <>
            <h1>Not found</h1>
            <p>
              There is no page at {path}. <Link href="/">Back to your account</Link>.
            </p>
          </>
        )}
      </main>
    </>
  );
}
