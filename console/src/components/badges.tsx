// Small coloured labels: a lead's state and an execution's or step's status. Colour is never the
// only signal: the text says it.
import type { LeadSummary } from '../../server/api-types.js';
import { formatTime } from '../format.js';
import { t } from '../i18n/index.js';

/** conversando / pausado até HH:MM / transferido / descadastrado. */
export function LeadStateBadge({ lead }: { lead: Pick<LeadSummary, 'state' | 'pausado_ate'> }) {
  const until = formatTime(lead.pausado_ate);
  const text = lead.state === 'paused' ? (until ? t.leadState.paused(until) : t.leadState.pausedNoTime) : t.leadState[lead.state];
  return <span class={`badge state-${lead.state}`}>{text}</span>;
}

/** An execution or step status, e.g. sucesso, falhou, aguardando. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.replace(/[^a-z_-]/gi, '')}`}>{t.status[status] ?? status}</span>;
}
