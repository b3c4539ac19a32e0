// The agenda's pickers: a lead of the clinic by name or phone (GET /admin/leads?clinica_id&q), and a
// free slot of a day (GET /admin/clinics/:id/agenda/horarios?dia&lead_id). Days are the clinic's
// local dates (`YYYY-MM-DD`); a slot is its `inicio` (ISO) with its local `hora`.
import { useEffect, useState } from 'preact/hooks';
import type { AgendaSlot, AgendaSlotsResponse, LeadSummary, LeadsResponse } from '../../server/api-types.js';
import { api, query } from '../api/client.js';
import { formatPhone } from '../format.js';
import { useResource } from '../hooks/use-resource.js';
import { t } from '../i18n/index.js';
import { LoadError, Loading } from './feedback.js';

const SEARCH_DELAY_MS = 300;
const LEAD_RESULTS = 8;

/** `YYYY-MM-DD` as `dd/mm`. */
export const shortDate = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}`;

/** A search box and the matching leads of the clinic as buttons; picking one calls `onPick`. */
export function LeadPicker({ clinicId, onPick }: { clinicId: number; onPick: (lead: LeadSummary) => void }) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const leads = useResource(
    () => api<LeadsResponse>('GET', `/admin/leads${query({ clinica_id: clinicId, q, limit: LEAD_RESULTS })}`),
    [clinicId, q],
  );
  return (
    <div class="agenda-picker">
      <label class="field">
        <span>{t.agenda.leadSearch}</span>
        <input
          type="search"
          value={text}
          placeholder={t.agenda.leadSearchPlaceholder}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </label>
      {leads.error ? <LoadError error={leads.error} onRetry={leads.reload} /> : null}
      {leads.data && leads.data.leads.length === 0 ? <p class="muted">{t.agenda.noLeads}</p> : null}
      {leads.data && leads.data.leads.length > 0 ? (
        <ul class="choice-list" aria-label={t.agenda.leadResults}>
          {leads.data.leads.map((lead) => (
            <li key={lead.id}>
              <button type="button" class="choice" onClick={() => onPick(lead)}>
                <strong>{lead.nome || t.agenda.unnamed}</strong> <span class="muted">{formatPhone(lead.remotejid)}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A day field and that day's free slots for `leadId` as toggle buttons; `chosen` is the picked slot's `inicio`. */
export function SlotPicker({
  clinicId,
  leadId,
  day,
  onDay,
  chosen,
  onChoose,
}: {
  clinicId: number;
  leadId: number;
  day: string;
  onDay: (day: string) => void;
  chosen: AgendaSlot | null;
  onChoose: (slot: AgendaSlot) => void;
}) {
  const slots = useResource(
    () => api<AgendaSlotsResponse>('GET', `/admin/clinics/${clinicId}/agenda/horarios${query({ dia: day, lead_id: leadId })}`),
    [clinicId, leadId, day],
  );
  return (
    <div class="agenda-picker">
      <label class="field">
        <span>{t.agenda.dayLabel}</span>
        <input type="date" value={day} required onChange={(event) => event.currentTarget.value && onDay(event.currentTarget.value)} />
      </label>
      {slots.error ? <LoadError error={slots.error} onRetry={slots.reload} /> : null}
      {!slots.data && !slots.error ? <Loading /> : null}
      {slots.data && slots.data.horarios.length === 0 ? <p class="muted">{t.agenda.noSlots}</p> : null}
      {slots.data && slots.data.horarios.length > 0 ? (
        <fieldset class="slot-grid">
          <legend>{t.agenda.slotsLabel(shortDate(slots.data.dia))}</legend>
          {slots.data.horarios.map((slot) => (
            <button
              key={slot.inicio}
              type="button"
              class={`slot${chosen?.inicio === slot.inicio ? ' slot-chosen' : ''}`}
              aria-pressed={chosen?.inicio === slot.inicio}
              onClick={() => onChoose(slot)}
            >
              {slot.hora}
            </button>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}
