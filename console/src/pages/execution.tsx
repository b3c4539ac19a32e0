// One execution (GET /admin/executions/:id): what it ran on, when, how it ended, its steps as a
// waterfall, and the buttons to replay it (POST /admin/executions/:id/replay: 202 -> open the new
// execution), replay it as a dry run (?dry_run=1: 200 with the finished record, shown below, kept
// nowhere) and, while it is running or waiting, cancel it after a confirmation
// (POST /admin/executions/:id/cancel: 200 -> the page loads it again, now cancelled).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeFailure } from '../api/client.js';
import type {
  CancelExecutionResponse,
  DryRunReplayResponse,
  ExecutionRecord,
  ExecutionResponse,
  ReplayStartedResponse,
} from '../api/execution-types.js';
import { StatusBadge } from '../components/badges.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { JsonBlock } from '../components/json-block.js';
import { Link } from '../components/link.js';
import { StepList } from '../components/step-list.js';
import { executionDurationText } from '../execution-time.js';
import { formatFull } from '../format.js';
import { t } from '../i18n/index.js';
import { stopReasonText } from '../i18n/server-texts.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

/** One execution's page (`/console/executions/:id`). */
export function ExecutionPage({ params, title }: PageProps) {
  const id = params.id ?? '';
  const resource = useResource(() => api<ExecutionResponse>('GET', `/admin/executions/${encodeURIComponent(id)}`), [id]);
  const [dryRun, setDryRun] = useState<ExecutionRecord | null>(null);
  const dryRunSection = useRef<HTMLElement>(null);
  const flow = resource.data?.flow;
  useEffect(() => setDryRun(null), [id]);
  useEffect(() => {
    if (dryRun) dryRunSection.current?.focus();
  }, [dryRun]);
  usePageTitle(title(flow));
  return (
    <main class="page">
      <Link href={href('executions')}>{t.execution.backToList}</Link>
      {resource.error ? <LoadError error={resource.error} onRetry={resource.reload} /> : null}
      {!resource.data && !resource.error ? <Loading /> : null}
      {resource.data ? (
        <>
          <ExecutionDetails execution={resource.data} headingLevel={1}>
            <ExecutionActions key={id} id={id} status={resource.data.status} onDryRun={setDryRun} onChanged={resource.reload} />
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
  execution: ExecutionRecord;
  headingLevel: 1 | 2;
  /** Shown under the heading (the replay and cancel buttons). */
  children?: ComponentChildren;
}) {
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
          <dd>{executionDurationText(execution)}</dd>
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
            <dd>{stopReasonText(execution.stop_reason)}</dd>
          </div>
        ) : null}
        {execution.parent_id ? (
          <div class="fact">
            <dt>{t.execution.parent}</dt>
            <dd>
              <Link href={href('execution', { id: execution.parent_id })}>{execution.parent_id.slice(0, 8)}</Link>
            </dd>
          </div>
        ) : null}
      </dl>
      {execution.error ? (
        <Notice kind="error">
          <div class="error-detail">
            <p>{execution.error.step ? t.execution.failedAt(execution.error.step) : t.execution.failedNoStep}</p>
            <details>
              <summary>{t.execution.errorMessage}</summary>
              <pre class="error-text" translate={false}>
                {execution.error.message}
              </pre>
            </details>
          </div>
        </Notice>
      ) : null}
      <JsonBlock label={t.execution.trigger} value={execution.trigger} />
      {execution.response ? <JsonBlock label={t.execution.response} value={execution.response} /> : null}
      {execution.output !== undefined ? <JsonBlock label={t.execution.output} value={execution.output} /> : null}
      <SubHeading class="section-title">{t.execution.steps}</SubHeading>
      <StepList execution={execution} />
    </>
  );
}

function ExecutionActions({
  id,
  status,
  onDryRun,
  onChanged,
}: {
  id: string;
  status: ExecutionRecord['status'];
  onDryRun: (record: ExecutionRecord) => void;
  /** After a cancel: load the execution again. */
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState<'replay' | 'cancel' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const path = `/admin/executions/${encodeURIComponent(id)}`;
  const replay = async (dry: boolean) => {
    setBusy('replay');
    setError(null);
    setDone(null);
    try {
      if (dry) {
        const answer = await api<DryRunReplayResponse>('POST', `${path}/replay?dry_run=1`);
        onDryRun(answer.execution);
      } else {
        const answer = await api<ReplayStartedResponse>('POST', `${path}/replay`);
        navigate(href('execution', { id: answer.execution_id }));
      }
    } catch (failure) {
      setError(t.common.actionFailed(describeFailure(failure)));
    } finally {
      setBusy(null);
    }
  };
  const cancel = async () => {
    setBusy('cancel');
    setError(null);
    try {
      await api<CancelExecutionResponse>('POST', `${path}/cancel`, {});
      setDone(t.execution.cancelled);
    } catch (failure) {
      setError(t.common.actionFailed(describeFailure(failure)));
    } finally {
      setBusy(null);
      setConfirming(false);
      // Cancelled, or not (e.g. it ended meanwhile): either way its status now is the server's.
      onChanged();
    }
  };
  const cancellable = status === 'waiting' || status === 'running';
  return (
    <section class="replay" aria-label={t.execution.replay}>
      <div class="button-row">
        <button type="button" class="button button-primary" disabled={busy !== null} onClick={() => replay(false)}>
          {busy === 'replay' ? t.execution.replaying : t.execution.replay}
        </button>
        <button type="button" class="button" disabled={busy !== null} onClick={() => replay(true)}>
          {t.execution.dryRunReplay}
        </button>
        {cancellable ? (
          <button type="button" class="button button-danger" disabled={busy !== null} onClick={() => setConfirming(true)}>
            {busy === 'cancel' ? t.execution.cancelling : t.execution.cancel}
          </button>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmDialog
          title={t.execution.cancelTitle}
          text={t.execution.cancelText}
          confirmLabel={t.execution.cancelConfirm}
          cancelLabel={t.execution.cancelKeep}
          danger
          busy={busy === 'cancel'}
          onConfirm={cancel}
          onCancel={() => setConfirming(false)}
        />
      ) : null}
      {done ? <Notice kind="ok">{done}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
    </section>
  );
}
