// The Pessoas page's form for a new account: name, email, role, and (for Equipe and Hunter) its
// clinics; POST /admin/users, the server's 409/422 shown beside the form.
import { useState } from 'preact/hooks';
import type { ClinicSummary } from '../../server/api-types.js';
import type { Papel, UserPasswordResponse } from '../../server/people-api-types.js';
import { api, describeFailure } from '../api/client.js';
import { Notice } from '../components/feedback.js';
import { tp } from '../i18n/people.js';

const PAPEIS: Papel[] = ['equipe', 'hunter', 'admin'];

/** The new-account form; `onCreated` gets the account and its password (to show once). */
export function NewPersonForm({
  clinics,
  onCreated,
  onCancel,
}: {
  clinics: ClinicSummary[];
  onCreated: (created: UserPasswordResponse) => void;
  onCancel: () => void;
}) {
  const [nome, setNome] = useState('');
  const [email, setEmail] = useState('');
  const [papel, setPapel] = useState<Papel>('equipe');
  const [chosen, setChosen] = useState<number[]>(clinics.length === 1 ? [clinics[0]!.id] : []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const f = tp.people.form;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(
        await api<UserPasswordResponse>('POST', '/admin/users', { nome, email, papel, clinica_ids: papel === 'admin' ? [] : chosen }),
      );
    } catch (failure) {
      setError(describeFailure(failure));
      setBusy(false);
    }
  };
  const toggle = (id: number) => setChosen(chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]);

  return (
    <form class="card person-form" onSubmit={submit} aria-labelledby="person-form-title">
      <h2 id="person-form-title" class="section-title">
        {f.heading}
      </h2>
      <div class="person-form-fields">
        <label class="field">
          <span>{f.nome}</span>
          <input type="text" name="nome" autoComplete="off" value={nome} onInput={(e) => setNome(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{f.email}</span>
          <input name="email" type="email" autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{f.papel}</span>
          <select name="papel" value={papel} onChange={(e) => setPapel(e.currentTarget.value as Papel)}>
            {PAPEIS.map((p) => (
              <option key={p} value={p}>
                {tp.papel[p]}
              </option>
            ))}
          </select>
          <span class="muted">{tp.papelHint[papel]}</span>
        </label>
      </div>
      {papel === 'admin' ? null : (
        <fieldset class="person-clinics">
          <legend>{f.clinicas}</legend>
          <p class="muted">{f.clinicasHint}</p>
          {clinics.map((c) => (
            <label key={c.id} class="check">
              <input type="checkbox" name="clinica" checked={chosen.includes(c.id)} onChange={() => toggle(c.id)} />
              <span>{c.nome}</span>
            </label>
          ))}
        </fieldset>
      )}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div class="button-row">
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? f.submitting : f.submit}
        </button>
        <button type="button" class="button" onClick={onCancel} disabled={busy}>
          {f.cancel}
        </button>
      </div>
    </form>
  );
}
