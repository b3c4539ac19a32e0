// One lead (GET /admin/leads/:id): the conversation as chat bubbles, the form answers and budget,
// the handoff (with its reason and the summary the Hunter got), its upcoming appointment, the lead's executions, and the actions (POST /admin/leads/:id/actions). Clearing the
// memory asks first; erasing asks the user to type the lead's phone digits. The page reloads itself
// every LEAD_REFRESH_MS (keeping what it shows while it loads).
import { useState } from 'preact/hooks';
import type { AgendaAppointment, LeadAction, LeadActionResponse, LeadDetail, LeadHandoff, LeadResponse } from '../../server/api-types.js';
import { api, describeFailure } from '../api/client.js';
import { LeadStateBadge, StatusBadge } from '../components/badges.js';
import { AuditTrail } from '../components/audit-trail.js';
import { Conversation } from '../components/conversation.js';
import { ReplyBox } from '../components/reply-box.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Transcript } from '../components/transcript.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { digitsOf, formatFull, formatPhone, formatWhen } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useRefresh } from '../hooks/use-refresh.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

/** How often a lead's page reloads itself (ms). */
export const LEAD_REFRESH_MS = 3000;

/** One lead's page (`/console/leads/:id`); erasing the lead returns to the leads with a notice. */
export function LeadPage({ params, title, showNotice }: PageProps) {
  const id = Number(params.id);
  const onErased = (message: string) => showNotice(message, href('leads'));
  const resource = useResource(() => api<LeadResponse>('GET', `/admin/leads/${id}`), [id]);
  // Raised by each reply sent from this page: the transcript reads itself again at once.
  const [changes, setChanges] = useState(0);
  const name = resource.data?.lead.nome;
  usePageTitle(title(name));
  useRefresh(resource.reload, LEAD_REFRESH_MS, !resource.error || resource.data !== null);

  if (resource.error && !resource.data) {
    return (
      <main class="page">
        <Link href={href('leads')}>{t.lead.backToList}</Link>
        <LoadError error={resource.error} onRetry={resource.reload} />
      </main>
    );
  }
  if (!resource.data) {
    return (
      <main class="page">
        <Loading />
      </main>
    );
  }
  const { lead, messages, executions, handoff, agendamento } = resource.data;
  return (
    <main class="page">
      <Link href={href('leads', {}, `?clinica=${lead.clinica_id}`)}>{t.lead.backToList}</Link>
      <div class="page-head">
        <h1>{lead.nome || t.leads.unnamed}</h1>
        <LeadStateBadge lead={lead} />
        {lead.aguardando ? <span class="badge state-waiting">{t.leads.waiting}</span> : null}
        <span class="muted">{formatPhone(lead.remotejid)}</span>
      </div>
      <LeadActions lead={lead} onDone={resource.reload} onErased={onErased} />
      <div class="lead-layout">
        <section class="card" aria-labelledby="conversation-title">
          <h2 id="conversation-title">{t.lead.conversation}</h2>
          <Transcript leadId={lead.id} refresh={changes} />
          <ReplyBox
            lead={lead}
            onChanged={() => {
              setChanges((n) => n + 1);
              resource.reload();
            }}
          />
          <details class="agent-memory">
            <summary>{t.transcript.memory}</summary>
            <Conversation messages={messages} />
          </details>
        </section>
        <div class="lead-side">
          <LeadAppointment lead={lead} appointment={agendamento} />
          <LeadFacts lead={lead} handoff={handoff} />
          <section class="card" aria-labelledby="lead-executions-title">
            <h2 id="lead-executions-title">{t.lead.executions}</h2>
            {executions.length === 0 ? (
              <p class="muted">{t.lead.noExecutions}</p>
            ) : (
              <ul class="plain-list">
                {executions.map((execution) => (
                  <li key={execution.id} class="execution-line">
                    <Link href={href('execution', { id: execution.id })}>{execution.flow}</Link>
                    <StatusBadge status={execution.status} />
                    <time class="muted" dateTime={execution.started_at}>
                      {formatWhen(execution.started_at)}
                    </time>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <AuditTrail leadId={lead.id} version={resource.data} />
        </div>
      </div>
    </main>
  );
}

/** The lead's upcoming appointment (time in the clinic's zone, status, origin) and a link to that day of the agenda. */
function LeadAppointment({ lead, appointment }: { lead: LeadDetail; appointment: AgendaAppointment | null }) {
  return (
    <section class="card" aria-labelledby="lead-appointment-title">
      <h2 id="lead-appointment-title">{t.lead.appointment}</h2>
      {appointment ? (
        <p class="lead-appointment">
          <strong>{appointment.texto}</strong>{' '}
          <span class={`badge appointment-${appointment.status}`}>{t.agenda.status[appointment.status] ?? appointment.status}</span>{' '}
          <span class={`badge origin-${appointment.origem}`}>{t.agenda.origin[appointment.origem] ?? appointment.origem}</span>{' '}
          <Link href={href('agenda', {}, `?clinica=${lead.clinica_id}&dia=${appointment.local_inicio.slice(0, 10)}`)}>
            {t.lead.openAgenda}
          </Link>
        </p>
      ) : (
        <p class="muted">{t.lead.noAppointment}</p>
      )}
    </section>
  );
}

/** "Transferido ao atendente · when" only while transferred; once undone it says so; else not transferred. */
function handoffText(lead: LeadDetail): string {
  if (lead.transferido) return lead.handoff_at ? `${t.lead.handoffSent} · ${formatFull(lead.handoff_at)}` : t.lead.handoffSent;
  if (lead.handoff_enviado) return lead.handoff_at ? t.lead.handoffUndoneAt(formatFull(lead.handoff_at)) : t.lead.handoffUndone;
  return t.lead.handoffNotSent;
}

function LeadFacts({ lead, handoff }: { lead: LeadDetail; handoff: LeadHandoff | null }) {
  const answers = lead.respostas ? Object.entries(lead.respostas) : [];
  return (
    <section class="card" aria-labelledby="lead-details-title">
      <h2 id="lead-details-title">{t.lead.details}</h2>
      <dl class="facts">
        <dt>{t.lead.phone}</dt>
        <dd>{formatPhone(lead.remotejid)}</dd>
        <dt>{t.lead.created}</dt>
        <dd>{formatFull(lead.created_at)}</dd>
        <dt>{t.lead.budget}</dt>
        <dd>{lead.orcamento === null || lead.orcamento === '' ? t.common.none : String(lead.orcamento)}</dd>
        <dt>{t.lead.handoff}</dt>
        <dd>{handoffText(lead)}</dd>
        {handoff && lead.transferido ? (
          <>
            <dt>{t.lead.handoffReason}</dt>
            <dd>{handoff.motivo ?? t.lead.noReason}</dd>
            {handoff.resumo ? (
              <>
                <dt>{t.lead.handoffSummary}</dt>
                <dd class="handoff-summary">{handoff.resumo}</dd>
              </>
            ) : null}
          </>
        ) : null}
        {lead.optout_at ? (
          <>
            <dt>{t.lead.optedOutAt}</dt>
            <dd>{formatFull(lead.optout_at)}</dd>
          </>
        ) : null}
      </dl>
      <h3>{t.lead.answers}</h3>
      {answers.length === 0 ? (
        <p class="muted">{t.lead.noAnswers}</p>
      ) : (
        <dl class="facts">
          {answers.map(([question, answer]) => (
            <div key={question} class="fact">
              <dt>{question}</dt>
              <dd>{typeof answer === 'string' ? answer : JSON.stringify(answer)}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

type Pending = { action: LeadAction; confirm?: 'reset' | 'erase' } | null;

function LeadActions({ lead, onDone, onErased }: { lead: LeadDetail; onDone: () => void; onErased: (message: string) => void }) {
  const [asking, setAsking] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'ok' | 'error'; text: string; execution?: string } | null>(null);
  const paused = lead.state === 'paused';

  const run = async (action: LeadAction) => {
    setBusy(true);
    setResult(null);
    try {
      const answer = await api<LeadActionResponse>('POST', `/admin/leads/${lead.id}/actions`, {
        action,
        ...(action === 'erase' ? { confirm: lead.remotejid } : {}),
      });
      setAsking(null);
      if (action === 'erase') {
        onErased(t.lead.done.erase);
        navigate(href('leads', {}, `?clinica=${lead.clinica_id}`), true);
        return;
      }
      setResult({ kind: 'ok', text: t.lead.done[action], execution: answer.execution_id });
      onDone();
    } catch (failure) {
      setResult({ kind: 'error', text: t.common.actionFailed(describeFailure(failure)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="actions" aria-label={t.lead.actions}>
      <div class="button-row">
        <button type="button" class="button" disabled={busy} onClick={() => run(paused ? 'resume' : 'pause')}>
          {paused ? t.lead.resume : t.lead.pause}
        </button>
        <button type="button" class="button" disabled={busy} onClick={() => run(lead.transferido ? 'untransfer' : 'transfer')}>
          {lead.transferido ? t.lead.untransfer : t.lead.transfer}
        </button>
        <button type="button" class="button" disabled={busy} onClick={() => setAsking({ action: 'reset', confirm: 'reset' })}>
          {t.lead.reset}
        </button>
        <button type="button" class="button button-danger" disabled={busy} onClick={() => setAsking({ action: 'erase', confirm: 'erase' })}>
          {t.lead.erase}
        </button>
      </div>
      {result ? (
        <Notice kind={result.kind}>
          {result.text} {result.execution ? <Link href={href('execution', { id: result.execution })}>{t.lead.viewExecution}</Link> : null}
        </Notice>
      ) : null}
      {asking?.confirm === 'reset' ? (
        <ConfirmDialog
          title={t.lead.resetConfirmTitle}
          text={t.lead.resetConfirmText}
          confirmLabel={t.lead.resetConfirm}
          busy={busy}
          onConfirm={() => run('reset')}
          onCancel={() => setAsking(null)}
        />
      ) : null}
      {asking?.confirm === 'erase' ? (
        <ConfirmDialog
          title={t.lead.eraseTitle}
          text={t.lead.eraseText}
          confirmLabel={t.lead.eraseConfirm}
          danger
          busy={busy}
          typed={{ label: t.lead.eraseTypeLabel(formatPhone(lead.remotejid)), digits: digitsOf(lead.remotejid) }}
          onConfirm={() => run('erase')}
          onCancel={() => setAsking(null)}
        />
      ) : null}
    </section>
  );
}
