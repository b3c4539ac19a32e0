// Leads of one clinic: a clinic selector (GET /admin/clinics), a search by name or phone, a filter
// for the leads waiting for a person, and the list (GET /admin/leads) with each lead's state, mark
// and last message, 50 per page. The clinic, the search, the filter and the page live in the URL
// (?clinica=&q=&aguardando=1&page=), so back/forward and links keep them. The list reloads itself
// every LEADS_REFRESH_MS (see console/README.md, "Live pages"); the tab's title leads with how many
// wait, e.g. "(3) Leads · LeadFlow".
import { useEffect, useState } from 'preact/hooks';
import type { ClinicsResponse, LeadSummary, LeadsResponse } from '../../server/api-types.js';
import { api, query } from '../api/client.js';
import { LeadStateBadge } from '../components/badges.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { formatPhone, formatWhen } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useRefresh } from '../hooks/use-refresh.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 300;
/** How often the list reloads itself (ms). */
export const LEADS_REFRESH_MS = 5000;

interface ListFilter {
  clinic: string;
  q: string;
  /** Only the leads waiting for a person. */
  waiting: boolean;
}

function leadsUrl({ clinic, q, waiting }: ListFilter, page: number): string {
  return href('leads', {}, query({ clinica: clinic, q, aguardando: waiting ? 1 : undefined, page: page > 1 ? page : undefined }));
}

/** The leads of one clinic (`/console/leads`, and `/console/` itself). */
export function LeadsPage({ location, notice, title }: PageProps) {
  const clinicParam = location.search.get('clinica') ?? '';
  const q = location.search.get('q') ?? '';
  const waiting = location.search.get('aguardando') === '1';
  const page = Math.max(1, Number(location.search.get('page')) || 1);
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  const firstClinic = clinics.data?.clinics[0];
  const clinic = clinicParam || (firstClinic ? String(firstClinic.id) : '');
  const [waitingTotal, setWaitingTotal] = useState(0);
  const baseTitle = title();
  usePageTitle(baseTitle === null ? null : t.leads.titleWithWaiting(baseTitle, waitingTotal));
  const filter: ListFilter = { clinic, q, waiting };

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
              <select value={clinic} onChange={(event) => navigate(leadsUrl({ ...filter, clinic: event.currentTarget.value }, 1))}>
                {clinics.data.clinics.map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.nome}
                  </option>
                ))}
              </select>
            </label>
            <SearchBox initial={q} onSearch={(text) => navigate(leadsUrl({ ...filter, q: text }, 1), true)} />
            <label class="checkbox waiting-filter">
              <input
                type="checkbox"
                checked={waiting}
                onChange={(event) => navigate(leadsUrl({ ...filter, waiting: event.currentTarget.checked }, 1), true)}
              />
              <span>{t.leads.waitingFilter(waitingTotal)}</span>
            </label>
          </div>
          <LeadList filter={filter} page={page} onWaitingTotal={setWaitingTotal} />
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

function LeadList({ filter, page, onWaitingTotal }: { filter: ListFilter; page: number; onWaitingTotal: (n: number) => void }) {
  const { clinic, q, waiting } = filter;
  const offset = (page - 1) * PAGE_SIZE;
  const leads = useResource(
    () =>
      api<LeadsResponse>(
        'GET',
        `/admin/leads${query({ clinica_id: clinic, q, aguardando: waiting ? 1 : undefined, limit: PAGE_SIZE, offset })}`,
      ),
    [clinic, q, waiting, offset],
  );
  useRefresh(leads.reload, LEADS_REFRESH_MS);
  const waitingTotal = leads.data?.aguardando_total ?? 0;
  useEffect(() => onWaitingTotal(waitingTotal), [waitingTotal, onWaitingTotal]);
  if (leads.error && !leads.data) return <LoadError error={leads.error} onRetry={leads.reload} />;
  if (!leads.data) return <Loading />;
  const { total } = leads.data;
  if (leads.data.leads.length === 0) return <p class="muted">{waiting ? t.leads.noneWaiting : t.leads.empty}</p>;
  const last = offset + leads.data.leads.length;
  return (
    <>
      <ul class="lead-list" aria-label={t.leads.listLabel} aria-busy={leads.loading}>
        {leads.data.leads.map((lead) => (
          <LeadRow key={lead.id} lead={lead} />
        ))}
      </ul>
      <nav class="pagination" aria-label={t.leads.pagination}>
        <button type="button" class="button" disabled={page <= 1} onClick={() => navigate(leadsUrl(filter, page - 1))}>
          {t.leads.previous}
        </button>
        <span class="muted">{t.leads.range(offset + 1, last, total)}</span>
        <button type="button" class="button" disabled={last >= total} onClick={() => navigate(leadsUrl(filter, page + 1))}>
          {t.leads.next}
        </button>
      </nav>
    </>
  );
}

function LeadRow({ lead }: { lead: LeadSummary }) {
  return (
    <li>
      <Link href={href('lead', { id: lead.id })} class={lead.aguardando ? 'lead-row lead-row-waiting' : 'lead-row'}>
        <span class="lead-row-head">
          <strong class="lead-name">{lead.nome || t.leads.unnamed}</strong>
          <LeadStateBadge lead={lead} />
          {lead.aguardando ? <span class="badge state-waiting">{t.leads.waiting}</span> : null}
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
