// Minha conta (`/console/conta`): who is signed in (name, email, role, clinics by name) and changing
// one's own password (POST /admin/session/password: the current one, the new one twice, 10+
// characters). With the admin token there is no password to change: the page says so.
import { useState } from 'preact/hooks';
import type { ClinicsResponse } from '../../server/api-types.js';
import { ApiFailure, api, changePassword, describeFailure, signedInUser } from '../api/client.js';
import { Notice } from '../components/feedback.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { t } from '../i18n/index.js';
import { tp } from '../i18n/people.js';
import type { PageProps } from '../routes.js';

/** The Minha conta page. */
export function AccountPage({ title }: PageProps) {
  const user = signedInUser();
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  usePageTitle(title());
  const a = tp.account;
  const names = (clinics.data?.clinics ?? []).map((c) => c.nome);
  return (
    <main class="page account">
      <h1>{a.heading}</h1>
      {user ? (
        <>
          <dl class="card account-facts">
            <dt>{a.nome}</dt>
            <dd>{user.nome}</dd>
            <dt>{a.email}</dt>
            <dd>{user.email}</dd>
            <dt>{a.papel}</dt>
            <dd>{`${tp.papel[user.papel]} — ${tp.papelHint[user.papel]}`}</dd>
            <dt>{a.clinicas}</dt>
            <dd>{user.papel === 'admin' ? tp.people.allClinics : names.join(', ') || t.common.none}</dd>
          </dl>
          <PasswordForm />
        </>
      ) : (
        <p class="card account-facts">{a.tokenText}</p>
      )}
    </main>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const a = tp.account;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (next.length < 10) return setResult({ kind: 'error', text: a.tooShort });
    if (next !== repeat) return setResult({ kind: 'error', text: a.mismatch });
    setBusy(true);
    setResult(null);
    try {
      await changePassword({ current, password: next });
      setCurrent('');
      setNext('');
      setRepeat('');
      setResult({ kind: 'ok', text: a.changed });
    } catch (failure) {
      const wrong = failure instanceof ApiFailure && failure.status === 401;
      setResult({ kind: 'error', text: wrong ? a.wrongCurrent : t.common.actionFailed(describeFailure(failure)) });
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, name: string, value: string, set: (v: string) => void, complete: string) => (
    <label class="field">
      <span>{label}</span>
      <input type="password" name={name} autoComplete={complete} value={value} onInput={(e) => set(e.currentTarget.value)} />
    </label>
  );
  return (
    <form class="card account-password" onSubmit={submit} noValidate aria-labelledby="account-password-title">
      <h2 id="account-password-title" class="section-title">
        {a.change}
      </h2>
      {field(a.current, 'current', current, setCurrent, 'current-password')}
      {field(a.next, 'password', next, setNext, 'new-password')}
      {field(a.repeat, 'repeat', repeat, setRepeat, 'new-password')}
      {result ? <Notice kind={result.kind}>{result.text}</Notice> : null}
      <div class="button-row">
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? a.submitting : a.submit}
        </button>
      </div>
    </form>
  );
}
