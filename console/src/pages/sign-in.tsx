// Sign-in: the admin token in, a session cookie back (POST /admin/session); 401 shows "Token inválido".
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, describeFailure, signIn } from '../api/client.js';
import { Notice } from '../components/feedback.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { t } from '../i18n/index.js';

/** The sign-in page, shown instead of any page while signed out; `notice` says why (session expired). */
export function SignInPage({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  usePageTitle(t.titles.signIn);
  useEffect(() => {
    field.current?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (token.trim() === '') {
      setError(t.signIn.emptyToken);
      field.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(token.trim());
      onSignedIn();
    } catch (failure) {
      setError(failure instanceof ApiFailure && failure.status === 401 ? t.signIn.invalidToken : t.signIn.failed(describeFailure(failure)));
      setBusy(false);
      field.current?.select();
    }
  };

  return (
    <main class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} noValidate>
        <p class="brand">{t.appName}</p>
        <h1>{t.signIn.heading}</h1>
        <p class="muted">{t.signIn.intro}</p>
        {notice ? <Notice kind="ok">{notice}</Notice> : null}
        <label class="field">
          <span>{t.signIn.tokenLabel}</span>
          <input
            ref={field}
            type="password"
            name="token"
            autoComplete="current-password"
            value={token}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'sign-in-error' : undefined}
            onInput={(event) => setToken(event.currentTarget.value)}
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
      </form>
    </main>
  );
}
