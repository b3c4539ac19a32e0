// Executions (GET /admin/executions), newest first, filtered by flow, status and version prefix
// (kept in the URL: ?flow=&status=&version=). Refreshes itself every 5 s while the box is ticked
// and the tab is visible.
import { useState } from 'preact/hooks';
import { api, query } from '../api/client.js';
import { EXECUTION_STATUSES, type ExecutionListResponse } from '../api/execution-types.js';
import { StatusBadge } from '../components/badges.js';
import { LoadError, Loading } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { executionDurationText } from '../execution-time.js';
import { formatTime, formatWhen } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useRefresh } from '../hooks/use-refresh.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

const LIST_LIMIT = 50;
/** How often the list reloads while the box is ticked, in milliseconds. */
const REFRESH_MS = 5000;

/** The executions list (`/console/executions`, filters in the query). */
export function ExecutionsPage({ location, title }: PageProps) {
  const flow = location.search.get('flow') ?? '';
  const status = location.search.get('status') ?? '';
  const version = location.search.get('version') ?? '';
  const lead = location.search.get('lead') ?? '';
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [loadedAt, setLoadedAt] = useState<number | null>(null);
  const list = useResource(async () => {
    // A lead's executions: those whose trigger, vars or key hold its phone digits.
    const containing = lead;
    const answer = await api<ExecutionListResponse>(
      'GET',
      `/admin/executions${query({ flow, status, version, containing, limit: LIST_LIMIT })}`,
    );
    setLoadedAt(Date.now());
    return answer;
  }, [flow, status, version, lead]);
  const { reload } = list;

  usePageTitle(title());
  useRefresh(reload, REFRESH_MS, autoRefresh);

  return (
    <main class="page">
      <h1>{t.executions.heading}</h1>
      <Filters key={`${flow}|${status}|${version}|${lead}`} flow={flow} status={status} version={version} lead={lead} />
      <div class="list-meta">
        <label class="checkbox">
          <input type="checkbox" checked={autoRefresh} onChange={(event) => setAutoRefresh(event.currentTarget.checked)} />
          <span>{t.executions.autoRefresh}</span>
        </label>
        {loadedAt ? (
          <span class="muted" aria-live="off">
            {t.executions.updatedAt(formatTime(loadedAt))}
          </span>
        ) : null}
      </div>
      {list.error ? <LoadError error={list.error} onRetry={reload} /> : null}
      {!list.data && !list.error ? <Loading /> : null}
      {list.data && list.data.executions.length === 0 ? <p class="muted">{t.executions.empty}</p> : null}
      {list.data && list.data.executions.length > 0 ? (
        <div class="table-wrap">
          <table class="table" aria-label={t.executions.tableLabel}>
            <thead>
              <tr>
                <th scope="col">{t.executions.columns.flow}</th>
                <th scope="col">{t.executions.columns.status}</th>
                <th scope="col">{t.executions.columns.started}</th>
                <th scope="col" class="numeric">
                  {t.executions.columns.duration}
                </th>
                <th scope="col" class="numeric">
                  {t.executions.columns.steps}
                </th>
                <th scope="col" class="hide-narrow">
                  {t.executions.columns.id}
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.executions.map((execution) => (
                <tr key={execution.id}>
                  <td>
                    <Link href={href('execution', { id: execution.id })}>{execution.flow}</Link>
                    {execution.dry_run ? <span class="muted"> · {t.executions.dryRun}</span> : null}
                  </td>
                  <td>
                    <StatusBadge status={execution.status} />
                  </td>
                  <td>
                    <time dateTime={execution.created_at}>{formatWhen(execution.created_at)}</time>
                  </td>
                  <td class="numeric">{executionDurationText(execution)}</td>
                  <td class="numeric">{execution.steps}</td>
                  <td class="hide-narrow mono">{execution.id.slice(0, 8)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </main>
  );
}

function Filters(props: { flow: string; status: string; version: string; lead: string }) {
  const [flow, setFlow] = useState(props.flow);
  const [status, setStatus] = useState(props.status);
  const [version, setVersion] = useState(props.version);
  const [lead, setLead] = useState(props.lead);
  const apply = (event: Event) => {
    event.preventDefault();
    const digits = lead.replace(/\D/g, '');
    navigate(href('executions', {}, query({ flow: flow.trim(), status, version: version.trim().toLowerCase(), lead: digits })));
  };
  const hasFilters = props.flow !== '' || props.status !== '' || props.version !== '' || props.lead !== '';
  return (
    <form class="toolbar" onSubmit={apply} aria-label={t.executions.filters}>
      <label class="field">
        <span>{t.executions.flowLabel}</span>
        <input
          type="text"
          value={flow}
          placeholder={t.executions.flowPlaceholder}
          onInput={(event) => setFlow(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>{t.executions.statusLabel}</span>
        <select
          value={status}
          onChange={(event) => {
            const next = event.currentTarget.value;
            setStatus(next);
            navigate(href('executions', {}, query({ flow: props.flow, status: next, version: props.version, lead: props.lead })));
          }}
        >
          <option value="">{t.executions.anyStatus}</option>
          {EXECUTION_STATUSES.map((name) => (
            <option key={name} value={name}>
              {t.status[name] ?? name}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t.executions.versionLabel}</span>
        <input
          type="text"
          value={version}
          placeholder={t.executions.versionPlaceholder}
          spellcheck={false}
          autoComplete="off"
          onInput={(event) => setVersion(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>{t.executions.leadLabel}</span>
        <input
          type="tel"
          value={lead}
          placeholder={t.executions.leadPlaceholder}
          autoComplete="off"
          onInput={(event) => setLead(event.currentTarget.value)}
        />
      </label>
      <div class="toolbar-buttons">
        <button type="submit" class="button button-primary">
          {t.executions.apply}
        </button>
        {hasFilters ? (
          <button type="button" class="button" onClick={() => navigate(href('executions'))}>
            {t.executions.clear}
          </button>
        ) : null}
      </div>
    </form>
  );
}
