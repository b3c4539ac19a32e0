// One execution (GET /admin/executions/:id): what it ran on, when, how it ended, its steps, and
// the buttons to replay it (POST /admin/executions/:id/replay: 202 -> open the new execution) or
// replay it as a dry run (?dry_run=1: 200 with the finished record, shown below, kept nowhere).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeFailure } from '../api/client.js';
import type { DryRunReplay, ExecutionView, ReplayStarted } from '../api/execution-types.js';
import { StatusBadge } from '../components/badges.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { JsonBlock } from '../components/json-block.js';
import { Link } from '../components/link.js';
import { StepList } from '../components/step-list.js';
import { formatDuration, formatFull } from '../format.js';
import { t } from '../i18n/index.js';
import { navigate, paths } from '../router.js';
import { useResource } from '../use-resource.js';

export function ExecutionPage({ id }: { id: string }) {
  const resource = useResource(() => api<ExecutionView>('GET', `/admin/executions/${encodeURIComponent(id)}`), [id]);
  const [dryRun, setDryRun] = useState<ExecutionView | null>(null);
  const dryRunSection = useRef<HTMLElement>(null);
  const flow = resource.data?.flow;
  useEffect(() => setDryRun(null), [id]);
  useEffect(() => {
    if (dryRun) dryRunSection.current?.focus();
  }, [dryRun]);
  useEffect(() => {
    if (flow) document.title = t.titles.execution(flow);
  }, [flow]);
  return (
    <main class="page">
      <Link href={paths.executions()}>{t.execution.backToList}</Link>
      {resource.error ? <LoadError error={resource.error} onRetry={resource.reload} /> : null}
      {!resource.data && !resource.error ? <Loading /> : null}
      {resource.data ? (
        <>
          <ExecutionDetails execution={resource.data} headingLevel={1}>
            <ReplayButtons key={id} id={id} onDryRun={setDryRun} />
          </ExecutionDetails>
          {dryRun ? (
            <section class="card dry-run" ref={dryRunSection} tabIndex={-1} aria-label={t.execution.dryRunResult}>
              <p class="muted">{t.execution.dryRun}</p>
              <ExecutionDetails execution={dryRun} headingLevel={2} />
            </section>
          ) : null}
        </>
      ) : null}
    </main>
  );
}

function ExecutionDetails({
  execution,
  headingLevel,
  children,
}: {
  execution: ExecutionView;
  headingLevel: 1 | 2;
  /** Shown under the heading (the replay buttons). */
  children?: ComponentChildren;
}) {
  const end = execution.finished_at ?? execution.updated_at;
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  const SubHeading = headingLevel === 1 ? 'h2' : 'h3';
  return (
    <>
      <div class="page-head">
        <Heading>{execution.dry_run && headingLevel === 2 ? t.execution.dryRunResult : t.execution.heading(execution.flow)}</Heading>
        <StatusBadge status={execution.status} />
      </div>
      {children}
      <dl class="facts facts-inline card">
        <div class="fact">
          <dt>{t.execution.id}</dt>
          <dd class="mono">{execution.id}</dd>
        </div>
        <div class="fact">
          <dt>{t.execution.version}</dt>
          <dd class="mono">{execution.flow_version ? execution.flow_version.slice(0, 12) : t.common.none}</dd>
        </div>
        <div class="fact">
          <dt>{t.execution.started}</dt>
          <dd>{formatFull(execution.created_at)}</dd>
        </div>
        <div class="fact">
          <dt>{t.execution.finished}</dt>
          <dd>{formatFull(execution.finished_at)}</dd>
        </div>
        <div class="fact">
          <dt>{t.execution.duration}</dt>
          <dd>{formatDuration(Date.parse(end) - Date.parse(execution.created_at))}</dd>
        </div>
        {execution.wake_at ? (
          <div class="fact">
            <dt>{t.execution.wakeAt}</dt>
            <dd>{formatFull(execution.wake_at)}</dd>
          </div>
        ) : null}
        {execution.stop_reason ? (
          <div class="fact">
            <dt>{t.execution.stopReason}</dt>
            <dd>{execution.stop_reason}</dd>
          </div>
        ) : null}
        {execution.parent_id ? (
          <div class="fact">
            <dt>{t.execution.parent}</dt>
            <dd>
              <Link href={paths.execution(execution.parent_id)}>{execution.parent_id.slice(0, 8)}</Link>
            </dd>
          </div>
        ) : null}
      </dl>
      {execution.error ? (
        <Notice kind="error">
          {t.execution.error}: {execution.error.step ? `${execution.error.step} — ` : ''}
          {execution.error.message}
        </Notice>
      ) : null}
      <JsonBlock label={t.execution.trigger} value={execution.trigger} />
      {execution.response ? <JsonBlock label={t.execution.response} value={execution.response} /> : null}
      {execution.output !== undefined ? <JsonBlock label={t.execution.output} value={execution.output} /> : null}
      <SubHeading class="section-title">{t.execution.steps}</SubHeading>
      <StepList steps={execution.steps} />
    </>
  );
}

function ReplayButtons({ id, onDryRun }: { id: string; onDryRun: (record: ExecutionView) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const replay = async (dry: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const path = `/admin/executions/${encodeURIComponent(id)}/replay${dry ? '?dry_run=1' : ''}`;
      if (dry) {
        const answer = await api<DryRunReplay>('POST', path);
        onDryRun(answer.execution);
      } else {
        const answer = await api<ReplayStarted>('POST', path);
        navigate(paths.execution(answer.execution_id));
      }
    } catch (failure) {
      setError(t.common.actionFailed(describeFailure(failure)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="replay" aria-label={t.execution.replay}>
      <div class="button-row">
        <button type="button" class="button button-primary" disabled={busy} onClick={() => replay(false)}>
          {busy ? t.execution.replaying : t.execution.replay}
        </button>
        <button type="button" class="button" disabled={busy} onClick={() => replay(true)}>
          {t.execution.dryRunReplay}
        </button>
      </div>
      {error ? <Notice kind="error">{error}</Notice> : null}
    </section>
  );
}
