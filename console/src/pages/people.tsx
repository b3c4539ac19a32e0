// Pessoas (`/console/pessoas`, admins only): every console account with its role, its clinics by
// name and whether it is active (GET /admin/users, /admin/clinics); add one (POST /admin/users),
// disable one (with a confirmation), give one a new password; a new password shows once, with a
// copy button (only its hash is kept on the server).
import { useState } from 'preact/hooks';
import type { ClinicsResponse } from '../../server/api-types.js';
import type { Papel, UserPasswordResponse, UsersResponse, UserSummary } from '../../server/people-api-types.js';
import { api, describeFailure, signedInUser } from '../api/client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { formatFull } from '../format.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { t } from '../i18n/index.js';
import { tp } from '../i18n/people.js';
import type { PageProps } from '../routes.js';
import { NewPersonForm } from './people-form.js';

type Pending = { kind: 'disable' | 'reset'; user: UserSummary } | null;

/** The Pessoas page. */
export function PeoplePage({ title, notice, showNotice, location }: PageProps) {
  const users = useResource(() => api<UsersResponse>('GET', '/admin/users'), []);
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<UserPasswordResponse | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  usePageTitle(title());
  const names = new Map((clinics.data?.clinics ?? []).map((c) => [c.id, c.nome]));

  const act = async () => {
    if (!pending) return;
    setBusy(true);
    setError(null);
    try {
      const path = `/admin/users/${pending.user.id}/${pending.kind === 'disable' ? 'disable' : 'reset-password'}`;
      const answer = await api<UserPasswordResponse>('POST', path);
      if (pending.kind === 'reset') setShown(answer);
      else showNotice(tp.people.disabledNotice(pending.user.nome), location.pathname);
      users.reload();
    } catch (failure) {
      setError(t.common.actionFailed(describeFailure(failure)));
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  return (
    <main class="page people">
      <div class="page-head">
        <h1>{tp.people.heading}</h1>
        {adding ? null : (
          <button type="button" class="button button-primary" onClick={() => setAdding(true)}>
            {tp.people.add}
          </button>
        )}
      </div>
      <p class="muted">{tp.people.intro}</p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {shown ? <PasswordOnce shown={shown} onDone={() => setShown(null)} /> : null}
      {adding ? (
        <NewPersonForm
          clinics={clinics.data?.clinics ?? []}
          onCancel={() => setAdding(false)}
          onCreated={(created) => {
            setAdding(false);
            setShown(created);
            users.reload();
          }}
        />
      ) : null}
      {users.error ? <LoadError error={users.error} onRetry={users.reload} /> : null}
      {!users.data && !users.error ? <Loading /> : null}
      {users.data ? <PeopleTable users={users.data.users} clinicName={(id) => names.get(id) ?? `#${id}`} onAct={setPending} /> : null}
      {pending ? (
        <ConfirmDialog
          title={pending.kind === 'disable' ? tp.people.confirmDisable(pending.user.nome) : tp.people.confirmReset(pending.user.nome)}
          text={pending.kind === 'disable' ? tp.people.confirmDisableText : tp.people.confirmResetText}
          confirmLabel={pending.kind === 'disable' ? tp.people.disable : tp.people.resetPassword}
          danger={pending.kind === 'disable'}
          busy={busy}
          onConfirm={act}
          onCancel={() => setPending(null)}
        />
      ) : null}
    </main>
  );
}

/** The clinics of an account in words: "Todas" for an admin, else their names. */
function clinicsText(user: UserSummary, clinicName: (id: number) => string): string {
  return user.papel === 'admin' ? tp.people.allClinics : user.clinica_ids.map(clinicName).join(', ');
}

function PeopleTable({
  users,
  clinicName,
  onAct,
}: {
  users: UserSummary[];
  clinicName: (id: number) => string;
  onAct: (pending: Pending) => void;
}) {
  if (users.length === 0) return <p class="muted">{tp.people.empty}</p>;
  const me = signedInUser()?.id;
  const c = tp.people.columns;
  return (
    <div class="table-wrap card">
      <table class="table people-table" aria-label={tp.people.listLabel}>
        <thead>
          <tr>
            <th>{c.nome}</th>
            <th>{c.email}</th>
            <th>{c.papel}</th>
            <th>{c.clinicas}</th>
            <th>{c.estado}</th>
            <th>{c.acoes}</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} class={user.desativado_at ? 'person-disabled' : undefined}>
              <td data-label={c.nome}>{user.nome}</td>
              <td data-label={c.email} class="person-email">
                {user.email}
              </td>
              <td data-label={c.papel}>{tp.papel[user.papel as Papel]}</td>
              <td data-label={c.clinicas}>{clinicsText(user, clinicName)}</td>
              <td data-label={c.estado}>{user.desativado_at ? tp.people.disabled(formatFull(user.desativado_at)) : tp.people.active}</td>
              <td class="person-actions">
                {user.desativado_at ? null : (
                  <>
                    <button type="button" class="button" onClick={() => onAct({ kind: 'reset', user })}>
                      {tp.people.resetPassword}
                    </button>
                    {user.id === me ? null : (
                      <button type="button" class="button button-danger" onClick={() => onAct({ kind: 'disable', user })}>
                        {tp.people.disable}
                      </button>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A generated password, shown this once, with a copy button. */
function PasswordOnce({ shown, onDone }: { shown: UserPasswordResponse; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    navigator.clipboard?.writeText(shown.password).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <section class="card password-once" aria-labelledby="password-once-title" role="status">
      <h2 id="password-once-title" class="section-title">
        {tp.people.password.heading(shown.user.nome)}
      </h2>
      <p>{tp.people.password.text}</p>
      <p class="password-value mono" data-testid="generated-password">
        {shown.password}
      </p>
      <div class="button-row">
        <button type="button" class="button button-primary" onClick={copy}>
          {copied ? tp.people.password.copied : tp.people.password.copy}
        </button>
        <button type="button" class="button" onClick={onDone}>
          {tp.people.password.done}
        </button>
      </div>
    </section>
  );
}
