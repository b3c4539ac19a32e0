// Sign-in: email and password (POST /admin/session {email, password}), or the admin token behind a
// link (shown first on a server without accounts: its admin signs in with the token); a session cookie back. 401 shows one message for a wrong email or password, 429 the lockout.
// The page shows in place of whatever page asked for it (the URL stays), so signing in lands there.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, describeFailure, serverHasAccounts, signIn, signInWithPassword } from '../api/client.js';
import { Notice } from '../components/feedback.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { t } from '../i18n/index.js';
import { tp } from '../i18n/people.js';

/** Why a sign-in failed, in words. */
function failureText(failure: unknown, byToken: boolean): string {
  if (failure instanceof ApiFailure && failure.status === 401) return byToken ? t.signIn.invalidToken : tp.signIn.wrong;
  if (failure instanceof ApiFailure && failure.status === 429) return tp.signIn.locked;
  return t.signIn.failed(describeFailure(failure));
}

/** The sign-in page, shown instead of any page while signed out; `notice` says why (session expired). */
export function SignInPage({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string | null }) {
  const [byToken, setByToken] = useState(() => !serverHasAccounts());
  const [email, setEmail] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  usePageTitle(t.titles.signIn);
  useEffect(() => {
    first.current?.focus();
  }, [byToken]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (secret === '' || (!byToken && email.trim() === '')) {
      setError(byToken ? t.signIn.emptyToken : tp.signIn.empty);
      first.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      if (byToken) await signIn(secret.trim());
      else await signInWithPassword(email.trim(), secret);
      onSignedIn();
    } catch (failure) {
      setError(failureText(failure, byToken));
      setBusy(false);
    }
  };
  const switchMode = () => {
    setByToken(!byToken);
    setSecret('');
    setError(null);
  };
  const described = error ? 'sign-in-error' : undefined;

  return (
    <main class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} noValidate>
        <p class="brand">{t.appName}</p>
        <h1>{t.signIn.heading}</h1>
        <p class="muted">{byToken ? tp.signIn.tokenIntro : tp.signIn.intro}</p>
        {notice ? <Notice kind="ok">{notice}</Notice> : null}
        {byToken ? null : (
          <label class="field">
            <span>{tp.signIn.email}</span>
            <input
              ref={first}
              type="email"
              name="email"
              autoComplete="username"
              inputMode="email"
              value={email}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={described}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          </label>
        )}
        <label class="field">
          <span>{byToken ? t.signIn.tokenLabel : tp.signIn.password}</span>
          <input
            ref={byToken ? first : undefined}
            type="password"
            name={byToken ? 'token' : 'password'}
            autoComplete="current-password"
            value={secret}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={described}
            onInput={(event) => setSecret(event.currentTarget.value)}
          />
        </label>
        {error ? (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t.signIn.submitting : t.signIn.submit}
        </button>
        <button type="button" class="button button-quiet sign-in-switch" onClick={switchMode}>
          {byToken ? tp.signIn.usePassword : tp.signIn.useToken}
        </button>
      </form>
    </main>
  );
}
