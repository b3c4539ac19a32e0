// Small coloured labels: a lead's state and an execution's or step's status. Colour is never the
// only signal: the text says it.
import type { LeadSummary } from '../../server/api-types.js';
import { formatTime } from '../format.js';
import { t } from '../i18n/index.js';

/**
 * conversando / pausado até HH:MM / transferido / descadastrado; followed by "Sem resposta" while the
 * lead waits for an answer after the holding message (`sem_resposta_at` set).
 */
export function LeadStateBadge({
  lead,
}: {
  lead: Pick<LeadSummary, 'state' | 'pausado_ate'> & Partial<Pick<LeadSummary, 'sem_resposta_at'>>;
}) {
  const until = formatTime(lead.pausado_ate);
  const text = lead.state === 'paused' ? (until ? t.leadState.paused(until) : t.leadState.pausedNoTime) : t.leadState[lead.state];
  return (
    <>
      <span class={`badge state-${lead.state}`}>{text}</span>
      {lead.sem_resposta_at ? <span class="badge state-unanswered">{t.leadState.unanswered}</span> : null}
    </>
  );
}

/** An execution or step status, e.g. sucesso, falhou, aguardando. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.replace(/[^a-z_-]/gi, '')}`}>{t.status[status] ?? status}</span>;
}
