// Auditoria (`/console/audit`, admins only: the server answers 403 to anyone else): every row of the
// audit trail, newest first (GET /admin/audit), filtered by person, action, clinic, lead and period
// (De / Até: local days, Até included). "Carregar mais antigas" asks for more rows, up to 500.
import { useRef, useState } from 'preact/hooks';
import type { ClinicsResponse } from '../../server/api-types.js';
import type { AuditResponse } from '../../server/people-api-types.js';
import { api, query } from '../api/client.js';
import { AuditList } from '../components/audit-trail.js';
import { LoadError, Loading } from '../components/feedback.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import type { PageProps } from '../routes.js';

const PAGE = 100;
const MAX = 500;

interface Filters {
  usuario_id: string;
  acao: string;
  clinica_id: string;
  lead_id: string;
  de: string;
  ate: string;
}
const NO_FILTERS: Filters = { usuario_id: '', acao: '', clinica_id: '', lead_id: '', de: '', ate: '' };

/** A local day (YYYY-MM-DD) as the instant it starts, ISO; `plus` days later. */
function dayStart(day: string, plus = 0): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d! + plus).toISOString();
}

/** The query of GET /admin/audit for the filters (a lead that is not a number is left out). */
function auditQuery(f: Filters, limit: number): string {
  return query({
    usuario_id: f.usuario_id,
    acao: f.acao,
    clinica_id: f.clinica_id,
    lead_id: /^[1-9]\d*$/.test(f.lead_id.trim()) ? f.lead_id.trim() : '',
    after: f.de ? dayStart(f.de) : '',
    before: f.ate ? dayStart(f.ate, 1) : '',
    limit,
  });
}

/** The Auditoria page. */
export function AuditPage({ title }: PageProps) {
  usePageTitle(title());
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [limit, setLimit] = useState(PAGE);
  const rows = useResource(() => api<AuditResponse>('GET', `/admin/audit${auditQuery(filters, limit)}`), [filters, limit]);
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  const clinicNames = new Map((clinics.data?.clinics ?? []).map((c) => [c.id, c.nome]));
  // The people of every row seen so far (a filter by one person keeps the others choosable).
  const people = useRef(new Map<string, string>()).current;
  for (const e of rows.data?.entries ?? []) if (e.usuario_id !== null) people.set(String(e.usuario_id), e.usuario_nome);
  const set = (key: keyof Filters) => (event: Event) => {
    setFilters({ ...filters, [key]: (event.currentTarget as HTMLInputElement).value });
    setLimit(PAGE);
  };
  const entries = rows.data?.entries ?? [];
  const filtered = Object.values(filters).some((v) => v !== '');
  return (
    <main class="page audit-page">
      <div class="page-head">
        <h1>{t.audit.heading}</h1>
      </div>
      <p class="muted">{t.audit.intro}</p>
      <form class="toolbar audit-filters" onSubmit={(event) => event.preventDefault()}>
        <label class="field">
          <span>{t.audit.person}</span>
          <select value={filters.usuario_id} onChange={set('usuario_id')}>
            <option value="">{t.audit.anyPerson}</option>
            <option value="token">{t.audit.token}</option>
            {[...people].map(([id, nome]) => (
              <option key={id} value={id}>
                {nome}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t.audit.action}</span>
          <select value={filters.acao} onChange={set('acao')}>
            <option value="">{t.audit.anyAction}</option>
            {Object.entries(t.audit.actions).map(([acao, label]) => (
              <option key={acao} value={acao}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t.audit.clinic}</span>
          <select value={filters.clinica_id} onChange={set('clinica_id')}>
            <option value="">{t.audit.anyClinic}</option>
            {[...clinicNames].map(([id, nome]) => (
              <option key={id} value={String(id)}>
                {nome}
              </option>
            ))}
          </select>
        </label>
        <label class="field audit-lead">
          <span>{t.audit.lead}</span>
          <input type="text" inputMode="numeric" value={filters.lead_id} onChange={set('lead_id')} />
        </label>
        <label class="field">
          <span>{t.audit.from}</span>
          <input type="date" value={filters.de} onChange={set('de')} />
        </label>
        <label class="field">
          <span>{t.audit.to}</span>
          <input type="date" value={filters.ate} onChange={set('ate')} />
        </label>
        {filtered ? (
          <button type="button" class="button button-quiet" onClick={() => setFilters(NO_FILTERS)}>
            {t.audit.clear}
          </button>
        ) : null}
      </form>
      <section class="card" aria-label={t.audit.heading}>
        {rows.error ? <LoadError error={rows.error} onRetry={rows.reload} /> : null}
        {!rows.data && !rows.error ? <Loading /> : null}
        {rows.data && entries.length === 0 ? <p class="muted">{filtered ? t.audit.noneFiltered : t.audit.none}</p> : null}
        {entries.length > 0 ? <AuditList entries={entries} withLead clinics={clinicNames} /> : null}
        {entries.length >= limit && limit < MAX ? (
          <button type="button" class="button" onClick={() => setLimit(Math.min(MAX, limit + PAGE))}>
            {t.audit.more}
          </button>
        ) : null}
      </section>
    </main>
  );
}
