// The console's shell: asks the server whether the browser is signed in (GET /admin/session),
// shows the sign-in page or the top bar and the page of the current route, and returns to the
// sign-in page whenever the server answers 401.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { checkSession, describeFailure, onSignedOut, signOut } from './api/client.js';
import { LoadError, Loading } from './components/feedback.js';
import { Link } from './components/link.js';
import { TopBar } from './components/top-bar.js';
import { t } from './i18n/index.js';
import { ExecutionPage } from './pages/execution.js';
import { ExecutionsPage } from './pages/executions.js';
import { FlowPage } from './pages/flow.js';
import { FlowsPage } from './pages/flows.js';
import { LeadPage } from './pages/lead.js';
import { LeadsPage } from './pages/leads.js';
import { OverviewPage } from './pages/overview.js';
import { SignInPage } from './pages/sign-in.js';
import { type Location, parseRoute, paths } from './router.js';
import { useLocation } from './router.js';

type SessionState =
  | { kind: 'checking' }
  | { kind: 'signed-out'; notice: string | null }
  | { kind: 'signed-in' }
  | { kind: 'failed'; error: unknown };

export function App() {
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });
  const [notice, setNotice] = useState<{ text: string; path: string } | null>(null);
  const location = useLocation();
  const route = parseRoute(location.pathname);

  const check = useCallback(() => {
    setSession({ kind: 'checking' });
    checkSession().then(
      (signedIn) => setSession(signedIn ? { kind: 'signed-in' } : { kind: 'signed-out', notice: null }),
      (error: unknown) => setSession({ kind: 'failed', error }),
    );
  }, []);

  useEffect(() => {
    onSignedOut(() => setSession({ kind: 'signed-out', notice: t.common.sessionExpired }));
    check();
  }, [check]);

  // A notice (e.g. "Lead excluído.") belongs to the page it was set for; leaving that page drops it.
  useEffect(() => {
    if (notice && notice.path !== location.pathname) setNotice(null);
  }, [notice, location.pathname]);

  if (session.kind === 'checking') return <Loading />;
  if (session.kind === 'failed') return <LoadError error={session.error} onRetry={check} />;
  if (session.kind === 'signed-out') return <SignInPage notice={session.notice} onSignedIn={() => setSession({ kind: 'signed-in' })} />;

  const leave = () => {
    signOut()
      .catch((error: unknown) => console.warn('sign-out failed', describeFailure(error)))
      .finally(() => setSession({ kind: 'signed-out', notice: null }));
  };
  return (
    <>
      <TopBar route={route} onSignOut={leave} />
      <Page
        location={location}
        notice={notice?.path === location.pathname ? notice.text : null}
        onErased={(text) => setNotice({ text, path: paths.leads() })}
      />
    </>
  );
}

function Page({ location, notice, onErased }: { location: Location; notice: string | null; onErased: (message: string) => void }) {
  const route = parseRoute(location.pathname);
  switch (route.name) {
    case 'leads':
      return <LeadsPage location={location} notice={notice} />;
    case 'lead':
      return <LeadPage id={route.id} onErased={onErased} />;
    case 'executions':
      return <ExecutionsPage location={location} />;
    case 'execution':
      return <ExecutionPage id={route.id} />;
    case 'flows':
      return <FlowsPage />;
    case 'flow':
      return <FlowPage name={route.flow} location={location} />;
    case 'overview':
      return <OverviewPage location={location} />;
    default:
      return <NotFound />;
  }
}

function NotFound() {
  useEffect(() => {
    document.title = t.titles.notFound;
  }, []);
  return (
    <main class="page">
      <h1>{t.common.notFound}</h1>
      <Link href={paths.leads()}>{t.common.goHome}</Link>
    </main>
  );
}
