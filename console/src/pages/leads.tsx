// Leads of one clinic: a clinic selector (GET /admin/clinics), a search by name or phone, and the
// list (GET /admin/leads) with each lead's state and last message, 50 per page. The clinic, the
// search and the page live in the URL (?clinica=&q=&page=), so back/forward and links keep them.
import { useEffect, useState } from 'preact/hooks';
import type { ClinicsResponse, LeadSummary, LeadsResponse } from '../../server/api-types.js';
import { api, query } from '../api/client.js';
import { LeadStateBadge } from '../components/badges.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { formatPhone, formatWhen } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 300;

function leadsUrl(clinic: string, q: string, page: number): string {
  return href('leads', {}, query({ clinica: clinic, q, page: page > 1 ? page : undefined }));
}

/** The leads of one clinic (`/console/leads`, and `/console/` itself). */
export function LeadsPage({ location, notice, title }: PageProps) {
  const clinicParam = location.search.get('clinica') ?? '';
  const q = location.search.get('q') ?? '';
  const page = Math.max(1, Number(location.search.get('page')) || 1);
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  const firstClinic = clinics.data?.clinics[0];
  const clinic = clinicParam || (firstClinic ? String(firstClinic.id) : '');

  usePageTitle(title());

  return (
    <main class="page">
      <h1>{t.leads.heading}</h1>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      {clinics.error ? <LoadError error={clinics.error} onRetry={clinics.reload} /> : null}
      {clinics.loading && !clinics.data ? <Loading /> : null}
      {clinics.data && clinics.data.clinics.length === 0 ? <p class="muted">{t.leads.noClinics}</p> : null}
      {clinics.data && clinic ? (
        <>
          <div class="toolbar">
            <label class="field">
              <span>{t.leads.clinicLabel}</span>
              <select value={clinic} onChange={(event) => navigate(leadsUrl(event.currentTarget.value, q, 1))}>
                {clinics.data.clinics.map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.nome}
                  </option>
                ))}
              </select>
            </label>
            <SearchBox initial={q} onSearch={(text) => navigate(leadsUrl(clinic, text, 1), true)} />
          </div>
          <LeadList clinic={clinic} q={q} page={page} />
        </>
      ) : null}
    </main>
  );
}

function SearchBox({ initial, onSearch }: { initial: string; onSearch: (text: string) => void }) {
  const [text, setText] = useState(initial);
  useEffect(() => {
    if (text.trim() === initial) return;
    const timer = setTimeout(() => onSearch(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, initial, onSearch]);
  return (
    <label class="field field-grow">
      <span>{t.leads.searchLabel}</span>
      <input type="search" value={text} placeholder={t.leads.searchPlaceholder} onInput={(event) => setText(event.currentTarget.value)} />
    </label>
  );
}

function LeadList({ clinic, q, page }: { clinic: string; q: string; page: number }) {
  const offset = (page - 1) * PAGE_SIZE;
  const leads = useResource(
    () => api<LeadsResponse>('GET', `/admin/leads${query({ clinica_id: clinic, q, limit: PAGE_SIZE, offset })}`),
    [clinic, q, offset],
  );
  if (leads.error) return <LoadError error={leads.error} onRetry={leads.reload} />;
  if (!leads.data) return <Loading />;
  const { total } = leads.data;
  if (leads.data.leads.length === 0) return <p class="muted">{t.leads.empty}</p>;
  const last = offset + leads.data.leads.length;
  return (
    <>
      <ul class="lead-list" aria-label={t.leads.listLabel} aria-busy={leads.loading}>
        {leads.data.leads.map((lead) => (
          <LeadRow key={lead.id} lead={lead} />
        ))}
      </ul>
      <nav class="pagination" aria-label={t.leads.pagination}>
        <button type="button" class="button" disabled={page <= 1} onClick={() => navigate(leadsUrl(clinic, q, page - 1))}>
          {t.leads.previous}
        </button>
        <span class="muted">{t.leads.range(offset + 1, last, total)}</span>
        <button type="button" class="button" disabled={last >= total} onClick={() => navigate(leadsUrl(clinic, q, page + 1))}>
          {t.leads.next}
        </button>
      </nav>
    </>
  );
}

function LeadRow({ lead }: { lead: LeadSummary }) {
  return (
    <li>
      <Link href={href('lead', { id: lead.id })} class="lead-row">
        <span class="lead-row-head">
          <strong class="lead-name">{lead.nome || t.leads.unnamed}</strong>
          <LeadStateBadge lead={lead} />
          <time class="muted lead-time" dateTime={lead.ultima_mensagem_at ?? lead.created_at}>
            {formatWhen(lead.ultima_mensagem_at ?? lead.created_at)}
          </time>
        </span>
        <span class="muted lead-phone">{formatPhone(lead.remotejid)}</span>
        <span class="lead-last">{lead.ultima_mensagem || t.leads.noMessage}</span>
      </Link>
    </li>
  );
}
