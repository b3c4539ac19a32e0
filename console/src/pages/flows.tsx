// The flows this server runs (GET /admin/flows), each a link to its graph, with its trigger, step
// count, file and version; and the problems of the latest load of the flows directory as
// `file:line:col message [code]` (above the list, to be seen), or below it a line saying there were none.
import type { FlowLoadProblem, FlowSummary, FlowsResponse, FlowTriggerSummary } from '../../server/api-types.js';
import { api } from '../api/client.js';
import { LoadError, Loading } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { formatFull } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { href, type PageProps } from '../routes.js';

/** A flow's trigger in words. */
export function triggerText(trigger: FlowTriggerSummary): string {
  if (trigger.kind === 'webhook') return t.flows.trigger.webhook(trigger.method, trigger.path);
  if (trigger.kind === 'schedule') return t.flows.trigger.schedule(trigger.cron, trigger.timezone);
  return t.flows.trigger.none;
}

/** The Flows page (`/console/flows`). */
export function FlowsPage({ title }: PageProps) {
  const resource = useResource(() => api<FlowsResponse>('GET', '/admin/flows'), []);
  usePageTitle(title());
  const data = resource.data;
  return (
    <main class="page">
      <h1>{t.flows.heading}</h1>
      {resource.error ? <LoadError error={resource.error} onRetry={resource.reload} /> : null}
      {!data && !resource.error ? <Loading /> : null}
      {data ? (
        <>
          {data.problems.length > 0 ? <Problems problems={data.problems} loadedAt={data.loaded_at} /> : null}
          {data.flows.length === 0 ? <p class="muted">{t.flows.empty}</p> : <FlowList flows={data.flows} />}
          {data.problems.length === 0 ? <Problems problems={data.problems} loadedAt={data.loaded_at} /> : null}
        </>
      ) : null}
    </main>
  );
}

function FlowList({ flows }: { flows: FlowSummary[] }) {
  return (
    <ul class="flow-list card" aria-label={t.flows.listLabel}>
      {flows.map((flow) => (
        <li key={flow.name} class="flow-row">
          <div class="flow-row-head">
            <Link href={href('flow', { name: flow.name })} class="flow-name">
              {flow.name}
            </Link>
            <span class="mono flow-trigger">{triggerText(flow.trigger)}</span>
          </div>
          {flow.description ? <p class="flow-description">{flow.description}</p> : null}
          <p class="muted flow-meta">
            {t.flows.stepCount(flow.steps)} · <span class="mono">{flow.file}</span> ·{' '}
            <span class="mono">{t.flows.version(flow.version.slice(0, 12))}</span>
          </p>
        </li>
      ))}
    </ul>
  );
}

function Problems({ problems, loadedAt }: { problems: FlowLoadProblem[]; loadedAt: string }) {
  return (
    <section class="flow-problems" aria-labelledby="flow-problems-title">
      <h2 id="flow-problems-title" class="section-title">
        {t.flows.problems}
      </h2>
      {problems.length === 0 ? (
        <p class="muted">{t.flows.noProblems(formatFull(loadedAt))}</p>
      ) : (
        <>
          <p>{t.flows.problemsIntro(formatFull(loadedAt))}</p>
          <ul class="problem-list card" aria-label={t.flows.problemsLabel}>
            {problems.map((p, index) => (
              <li key={index} class="problem">
                <span class="mono problem-where">{`${p.file}:${p.line}:${p.col}`}</span> <span>{p.message}</span>{' '}
                <span class="mono muted">[{p.code}]</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
