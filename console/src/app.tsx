// The console's shell: asks the server whether the browser is signed in (GET /admin/session),
// shows the sign-in page or the top bar and the page of the current route, and returns to the
// sign-in page whenever the server answers 401.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { checkSession, describeFailure, onSignedOut, signOut } from './api/client.js';
import { LoadError, Loading } from './components/feedback.js';
import { TopBar } from './components/top-bar.js';
import { t } from './i18n/index.js';
import { SignInPage } from './pages/sign-in.js';
import { type Route, routeOf } from './routes.js';
import { type Location, useLocation } from './router.js';

type SessionState =
  | { kind: 'checking' }
  | { kind: 'signed-out'; notice: string | null }
  | { kind: 'signed-in' }
  | { kind: 'failed'; error: unknown };

/** The whole console: the session check, then the sign-in page or the top bar and the current route's page. */
export function App() {
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });
  const [notice, setNotice] = useState<{ text: string; path: string } | null>(null);
  const location = useLocation();
  const route = routeOf(location.pathname);

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
        route={route}
        location={location}
        notice={notice?.path === location.pathname ? notice.text : null}
        showNotice={(text, path) => setNotice({ text, path })}
      />
    </>
  );
}

/** The route's page with its PageProps. */
function Page({
  route,
  location,
  notice,
  showNotice,
}: {
  route: Route;
  location: Location;
  notice: string | null;
  showNotice: (text: string, pathname: string) => void;
}) {
  const { entry, params } = route;
  const Component = entry.page;
  const title = (subject?: string | null) => entry.title(params, subject);
  return <Component params={params} location={location} title={title} notice={notice} showNotice={showNotice} />;
}
