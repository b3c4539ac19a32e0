// Audit rows as a list (CONTRACT §13): when, who, what (Portuguese labels of AUDIT_ACTIONS) and the
// facts of the row worded for a person (the reply's kind and length, an appointment's status). Used
// by the lead's page (its own trail, GET /admin/leads/:id/audit) and the Auditoria page (with the
// lead and clinic of each row). Never shows more than the row holds: no text, no phone.
import type { AuditEntry, AuditResponse } from '../../server/people-api-types.js';
import { api } from '../api/client.js';
import { formatFull } from '../format.js';
import { useResource } from '../hooks/use-resource.js';
import { t } from '../i18n/index.js';
import { href } from '../routes.js';
import { LoadError, Loading } from './feedback.js';
import { Link } from './link.js';

/** An action's label ("Respondeu ao lead"), or the action's own name when it has none. */
export function auditLabel(acao: string): string {
  return t.audit.actions[acao] ?? acao;
}

/** The row's facts as a short phrase ("mensagem de texto, 42 caracteres"), '' when none is worth saying. */
export function auditFacts(entry: AuditEntry): string {
  const d = entry.detalhes;
  const parts: string[] = [];
  if (d.tipo === 'texto' || d.tipo === 'modelo') parts.push(t.audit.details[d.tipo]);
  if (typeof d.caracteres === 'number') parts.push(t.audit.details.caracteres(d.caracteres));
  if (d.optout_confirmado === true) parts.push(t.audit.details.optout);
  if (d.status === 'compareceu' || d.status === 'faltou') parts.push(t.audit.details[d.status]);
  if (d.status === 'failed') parts.push(t.audit.details.failed);
  return parts.join(', ');
}

/** The rows, newest first; `withLead` adds each row's lead (a link) and clinic name. */
export function AuditList({ entries, withLead, clinics }: { entries: AuditEntry[]; withLead?: boolean; clinics?: Map<number, string> }) {
  return (
    <ol class="audit-list">
      {entries.map((entry) => {
        const facts = auditFacts(entry);
        return (
          <li key={entry.id} class="audit-row">
            <time class="muted" dateTime={entry.created_at}>
              {formatFull(entry.created_at)}
            </time>
            <span class="audit-what">
              <strong>{entry.usuario_nome}</strong> · {auditLabel(entry.acao)}
              {facts ? <span class="muted"> ({facts})</span> : null}
            </span>
            {withLead && (entry.lead_id !== null || entry.clinica_id !== null) ? (
              <span class="audit-where muted">
                {entry.lead_id !== null ? <Link href={href('lead', { id: entry.lead_id })}>{t.audit.leadRef(entry.lead_id)}</Link> : null}
                {entry.lead_id !== null && entry.clinica_id !== null ? ' · ' : null}
                {entry.clinica_id !== null ? (clinics?.get(entry.clinica_id) ?? `${t.audit.clinic} ${entry.clinica_id}`) : null}
              </span>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

/** The lead's own trail (GET /admin/leads/:id/audit); `version` changes reload it (after an action). */
export function AuditTrail({ leadId, version }: { leadId: number; version: unknown }) {
  const trail = useResource(() => api<AuditResponse>('GET', `/admin/leads/${leadId}/audit`), [leadId, version]);
  return (
    <section class="card" aria-labelledby="lead-audit-title">
      <h2 id="lead-audit-title">{t.audit.leadHeading}</h2>
      {trail.error ? <LoadError error={trail.error} onRetry={trail.reload} /> : null}
      {!trail.data && !trail.error ? <Loading /> : null}
      {trail.data && trail.data.entries.length === 0 ? <p class="muted">{t.audit.none}</p> : null}
      {trail.data && trail.data.entries.length > 0 ? <AuditList entries={trail.data.entries} /> : null}
    </section>
  );
}
