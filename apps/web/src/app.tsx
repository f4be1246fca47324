import { type Session, sessionOperations } from "@imagehub/domain";
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { ApiError, call, setSessionHandlers } from "./api";
import { Loading } from "./components/messages";
import { PageHeading } from "./components/page-heading";
import { PasswordLinkPage, SignInLinkPage } from "./pages/one-time-link";
import { OverviewPage } from "./pages/overview";
import { SignInPage } from "./pages/sign-in";
import { Link, navigate, usePath } from "./router";

// Pages past the first load come in their own chunks, fetched when first opened.
const ApiKeysPage = lazy(() =>
  import("./pages/api-keys").then((module) => ({ default: module.ApiKeysPage })),
);
const WebhooksPage = lazy(() =>
  import("./pages/webhooks").then((module) => ({ default: module.WebhooksPage })),
);
const CataloguePage = lazy(() =>
  import("./pages/catalogue").then((module) => ({ default: module.CataloguePage })),
);
const ImagePage = lazy(() => import("./pages/catalogue").then((module) => ({ default: module.ImagePage })));
const CreditsPage = lazy(() => import("./pages/credits").then((module) => ({ default: module.CreditsPage })));
const AdminPage = lazy(() => import("./pages/admin").then((module) => ({ default: module.AdminPage })));
const GenerationsPage = lazy(() =>
  import("./pages/generations").then((module) => ({ default: module.GenerationsPage })),
);

interface Page {
  path: string;
  title: string;
  isAdminOnly?: boolean;
  render: (session: Session, signedOut: () => void) => ReactNode;
}

/** An image's own page: /catalogue/<image id>. */
const IMAGE_PAGE = /^\/catalogue\/([^/]+)$/;

const PAGES: Page[] = [
  {
    path: "/",
    title: "Account",
    render: (session, signedOut) => <OverviewPage session={session} onSignedOut={signedOut} />,
  },
  { path: "/keys", title: "API keys", render: () => <ApiKeysPage /> },
  { path: "/generations", title: "Generations", render: (session) => <GenerationsPage session={session} /> },
  { path: "/webhooks", title: "Webhooks", render: () => <WebhooksPage /> },
  { path: "/catalogue", title: "Catalogue", render: () => <CataloguePage /> },
  { path: "/credits", title: "Credits", render: () => <CreditsPage /> },
  // Not /admin: that path is the API's (the queue dashboard lives under /admin/queues).
  { path: "/accounts", title: "Admin", isAdminOnly: true, render: () => <AdminPage /> },
];

export function App() {
  const path = usePath();
  // undefined: not known yet; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  // Whether a sign-in or sign-out happened since the page opened: then the first session check, which may
  // answer later (a busy server), is out of date and must not overwrite it.
  const hasSessionChanged = useRef(false);
  const signedOut = useCallback(() => {
    hasSessionChanged.current = true;
    setSession(null);
  }, []);
  // The CSRF token is in place before any page renders: pages' effects run before this component's, and
  // some state-changing calls (a search is a POST) go out as a page first loads.
  const signedIn = useCallback(
    (next: Session) => {
      hasSessionChanged.current = true;
      setSessionHandlers(next.csrfToken, signedOut);
      setSession(next);
    },
    [signedOut],
  );

  useEffect(() => {
    call(sessionOperations.getSession).then(
      (found) => {
        if (!hasSessionChanged.current) signedIn(found);
      },
      (error: unknown) => {
        if (error instanceof ApiError && error.statusCode === 401 && !hasSessionChanged.current)
          setSession(null);
      },
    );
  }, [signedIn]);

  if (path === "/welcome") return <PasswordLinkPage kind="invitation" onSignedIn={signedIn} />;
  if (path === "/reset") return <PasswordLinkPage kind="reset" onSignedIn={signedIn} />;
  if (path === "/link") return <SignInLinkPage onSignedIn={signedIn} />;
  if (session === undefined) return <Loading what="your account" />;
  if (session === null) return <SignInPage onSignedIn={signedIn} />;

  const pages = PAGES.filter((page) => !page.isAdminOnly || session.account.isAdmin);
  const imageId = IMAGE_PAGE.exec(path)?.[1];
  const page: Page | undefined = imageId
    ? { path, title: "Image", render: () => <ImagePage imageId={decodeURIComponent(imageId)} /> }
    : pages.find((candidate) => candidate.path === path);
  const signOut = async () => {
    await call(sessionOperations.signOut).catch(() => undefined);
    signedOut();
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
          <Suspense fallback={<Loading what={`the ${page.title} page`} />}>
            {page.render(session, signedOut)}
          </Suspense>
        ) : (
          <>
            <PageHeading>Not found</PageHeading>
            <p>
              There is no page at {path}. <Link href="/">Back to your account</Link>.
            </p>
          </>
        )}
      </main>
    </>
  );
}
