// A clinic's agenda (GET /admin/clinics/:id/agenda): one day or its week (Monday to Sunday), each
// appointment with its time in the clinic's zone, its lead (a link to the lead's page), status and
// origin, and its actions: move (a free slot of any day), cancel (asks first), mark compareceu or
// faltou. "Marcar horário" books a free slot for a lead picked by name or phone. The clinic, the day
// and the view live in the URL (?clinica=&dia=&vista=); the day defaults to today in the browser's
// zone (Hoje: in the clinic's). The appointments are read again every minute while the tab is visible.
import { useState } from 'preact/hooks';
import type {
  AgendaActionResponse,
  AgendaAppointment,
  AgendaResponse,
  AgendaSlot,
  AgendaView,
  ClinicsResponse,
  LeadSummary,
} from '../../server/api-types.js';
import { api, describeFailure, query } from '../api/client.js';
import { LeadPicker, SlotPicker, shortDate } from '../components/agenda-pickers.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadError, Loading, Notice } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { formatPhone } from '../format.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useRefresh } from '../hooks/use-refresh.js';
import { useResource } from '../hooks/use-resource.js';
import { t } from '../i18n/index.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

/** How often the shown day or week is read again while the tab is visible (the agent books too), ms. */
const REFRESH_MS = 60_000;

/** Today's date (`YYYY-MM-DD`) in `zone`. */
export function todayIn(zone: string | undefined): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/** `day` (`YYYY-MM-DD`) moved by `days`. */
function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y!, (m ?? 1) - 1, (d ?? 1) + days)).toISOString().slice(0, 10);
}

const dayHeading = new Intl.DateTimeFormat(t.locale, { weekday: 'long', day: '2-digit', month: '2-digit', timeZone: 'UTC' });
/** `YYYY-MM-DD` as `Sexta-feira, 28/11`. */
function dayName(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  const text = dayHeading.format(new Date(Date.UTC(y!, (m ?? 1) - 1, d ?? 1)));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `HH:MM` of an instant in `zone`. */
function clockIn(iso: string, zone: string): string {
  return new Intl.DateTimeFormat(t.locale, { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

function agendaUrl(clinic: string, dia: string, vista: AgendaView): string {
  return href('agenda', {}, query({ clinica: clinic, dia, vista: vista === 'dia' ? undefined : vista }));
}

const leadName = (a: { lead_nome: string | null }) => a.lead_nome || t.agenda.unnamed;

/** Reports an action's result: its text, `error` for a failure, and the execution that made the change. */
type Done = (text: string, kind?: 'ok' | 'error', execution?: string) => void;

/** The agenda page (`/console/agenda?clinica=&dia=&vista=`). */
export function AgendaPage({ location, title }: PageProps) {
  const clinics = useResource(() => api<ClinicsResponse>('GET', '/admin/clinics'), []);
  const clinic = location.search.get('clinica') || (clinics.data?.clinics[0] ? String(clinics.data.clinics[0].id) : '');
  usePageTitle(title());
  return (
    <main class="page agenda">
      <h1>{t.agenda.heading}</h1>
      {clinics.error ? <LoadError error={clinics.error} onRetry={clinics.reload} /> : null}
      {clinics.loading && !clinics.data ? <Loading /> : null}
      {clinics.data && clinics.data.clinics.length === 0 ? <p class="muted">{t.leads.noClinics}</p> : null}
      {clinics.data && clinic ? <ClinicAgenda clinics={clinics.data} clinic={clinic} search={location.search} /> : null}
    </main>
  );
}

function ClinicAgenda({ clinics, clinic, search }: { clinics: ClinicsResponse; clinic: string; search: URLSearchParams }) {
  const vista: AgendaView = search.get('vista') === 'semana' ? 'semana' : 'dia';
  const asked = search.get('dia') ?? '';
  const dia = /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : todayIn(undefined);
  const agenda = useResource(
    () => api<AgendaResponse>('GET', `/admin/clinics/${clinic}/agenda${query({ dia, vista })}`),
    [clinic, dia, vista],
  );
  const [result, setResult] = useState<{ kind: 'ok' | 'error'; text: string; execution?: string } | null>(null);
  const [booking, setBooking] = useState(false);
  useRefresh(agenda.reload, REFRESH_MS);
  const step = vista === 'semana' ? 7 : 1;
  const go = (day: string, view = vista) => navigate(agendaUrl(clinic, day, view), true);
  const done: Done = (text, kind = 'ok', execution) => {
    setResult({ kind, text, ...(execution ? { execution } : {}) });
    if (kind === 'ok') agenda.reload();
  };
  const data = agenda.data;
  return (
    <>
      <div class="toolbar agenda-toolbar">
        <label class="field">
          <span>{t.agenda.clinicLabel}</span>
          <select value={clinic} onChange={(event) => navigate(agendaUrl(event.currentTarget.value, dia, vista))}>
            {clinics.clinics.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.nome}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t.agenda.dayLabel}</span>
          <input type="date" value={dia} required onChange={(event) => event.currentTarget.value && go(event.currentTarget.value)} />
        </label>
        <fieldset class="segmented">
          <legend class="visually-hidden">{t.agenda.viewLabel}</legend>
          {(['dia', 'semana'] as const).map((v) => (
            <button key={v} type="button" class="button" aria-pressed={vista === v} onClick={() => go(dia, v)}>
              {v === 'dia' ? t.agenda.day : t.agenda.week}
            </button>
          ))}
        </fieldset>
        <div class="toolbar-buttons">
          <button type="button" class="button" onClick={() => go(addDays(dia, -step))}>
            {t.agenda.previous}
          </button>
          <button type="button" class="button" onClick={() => go(todayIn(data?.clinica.timezone))}>
            {t.agenda.today}
          </button>
          <button type="button" class="button" onClick={() => go(addDays(dia, step))}>
            {t.agenda.next}
          </button>
        </div>
        {data?.clinica.agenda ? (
          <button
            type="button"
            class="button button-primary agenda-book-button"
            onClick={() => setBooking(!booking)}
            aria-expanded={booking}
          >
            {t.agenda.book}
          </button>
        ) : null}
      </div>
      {result ? (
        <Notice kind={result.kind}>
          {result.text} {result.execution ? <Link href={href('execution', { id: result.execution })}>{t.lead.viewExecution}</Link> : null}
        </Notice>
      ) : null}
      {agenda.error ? <LoadError error={agenda.error} onRetry={agenda.reload} /> : null}
      {!data && !agenda.error ? <Loading /> : null}
      {data && !data.clinica.agenda ? <p class="notice notice-warn">{t.agenda.noAgenda}</p> : null}
      {data?.clinica.agenda && booking ? (
        <BookPanel
          clinicId={data.clinica.id}
          day={dia}
          onClose={() => setBooking(false)}
          onDone={(text, kind = 'ok', execution) => {
            if (kind === 'ok') setBooking(false);
            done(text, kind, execution);
          }}
        />
      ) : null}
      {data ? <p class="muted agenda-zone">{t.agenda.zone(data.clinica.timezone)}</p> : null}
      {data ? <Days agenda={data} onDone={done} /> : null}
    </>
  );
}

/** Runs an agenda action, reporting its result (or failure) as a notice text. */
async function act(path: string, body: unknown, text: (answer: AgendaActionResponse) => string, onDone: Done): Promise<boolean> {
  try {
    const answer = await api<AgendaActionResponse>('POST', path, body);
    onDone(text(answer), 'ok', answer.execution_id);
    return true;
  } catch (failure) {
    onDone(t.common.actionFailed(describeFailure(failure)), 'error');
    return false;
  }
}

function BookPanel({ clinicId, day, onClose, onDone }: { clinicId: number; day: string; onClose: () => void; onDone: Done }) {
  const [lead, setLead] = useState<LeadSummary | null>(null);
  const [pickDay, setPickDay] = useState(day);
  const [slot, setSlot] = useState<AgendaSlot | null>(null);
  const [busy, setBusy] = useState(false);
  const book = async () => {
    if (!lead || !slot) return;
    setBusy(true);
    await act(
      `/admin/clinics/${clinicId}/agenda`,
      { lead_id: lead.id, inicio: slot.inicio },
      (answer) => t.agenda.done.marcado(leadName(answer.agendamento), answer.agendamento.texto),
      onDone,
    );
    setBusy(false);
  };
  return (
    <section class="card agenda-panel" aria-labelledby="agenda-book-title">
      <h2 id="agenda-book-title">{t.agenda.bookHeading}</h2>
      <p class="muted">{t.agenda.bookIntro}</p>
      {lead ? (
        <p class="agenda-chosen">
          <strong>{t.agenda.chosenLead(lead.nome || t.agenda.unnamed)}</strong> <span class="muted">{formatPhone(lead.remotejid)}</span>{' '}
          <button type="button" class="button button-quiet" onClick={() => setLead(null)}>
            {t.agenda.changeLead}
          </button>
        </p>
      ) : (
        <LeadPicker clinicId={clinicId} onPick={setLead} />
      )}
      {lead ? (
        <SlotPicker
          clinicId={clinicId}
          leadId={lead.id}
          day={pickDay}
          onDay={(d) => {
            setPickDay(d);
            setSlot(null);
          }}
          chosen={slot}
          onChoose={setSlot}
        />
      ) : (
        <p class="muted">{t.agenda.pickLeadFirst}</p>
      )}
      <div class="button-row">
        <button type="button" class="button button-primary" disabled={!lead || !slot || busy} onClick={book}>
          {slot ? t.agenda.bookConfirm(slot.hora) : t.agenda.book}
        </button>
        <button type="button" class="button" onClick={onClose}>
          {t.agenda.close}
        </button>
      </div>
    </section>
  );
}

function Days({ agenda, onDone }: { agenda: AgendaResponse; onDone: Done }) {
  const zone = agenda.clinica.timezone;
  return (
    <div class={`agenda-days agenda-${agenda.vista}`}>
      {agenda.dias.map((day) => {
        const items = agenda.agendamentos.filter((a) => a.local_inicio.startsWith(day));
        return (
          <section
            key={day}
            class={`card agenda-day${items.length === 0 ? ' agenda-day-empty' : ''}`}
            aria-labelledby={`agenda-day-${day}`}
          >
            <h2 id={`agenda-day-${day}`} class="agenda-day-title">
              {dayName(day)}
            </h2>
            {items.length === 0 ? (
              <p class="muted">{t.agenda.emptyDay}</p>
            ) : (
              <ul class="plain-list agenda-list" aria-label={t.agenda.listLabel(shortDate(day))}>
                {items.map((a) => (
                  <AppointmentRow key={a.id} appointment={a} zone={zone} clinicId={agenda.clinica.id} onDone={onDone} />
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </div>
  );
}

const holding = (a: AgendaAppointment) => (a.status === 'marcado' || a.status === 'confirmado') && Date.parse(a.inicio) > Date.now();

function AppointmentRow({
  appointment: a,
  zone,
  clinicId,
  onDone,
}: {
  appointment: AgendaAppointment;
  zone: string;
  clinicId: number;
  onDone: Done;
}) {
  const [mode, setMode] = useState<'move' | 'cancel' | null>(null);
  const [busy, setBusy] = useState(false);
  const name = leadName(a);
  const run = async (path: string, body: unknown, text: (answer: AgendaActionResponse) => string) => {
    setBusy(true);
    if (await act(`/admin/agendamentos/${a.id}/${path}`, body, text, onDone)) setMode(null);
    setBusy(false);
  };
  return (
    <li class={`agenda-item agenda-status-${a.status}`} data-agendamento={a.id}>
      <div class="agenda-item-head">
        <time class="agenda-time" dateTime={a.inicio}>
          {clockIn(a.inicio, zone)}–{clockIn(a.fim, zone)}
        </time>
        <span class="agenda-lead">
          <Link href={href('lead', { id: a.lead_id })}>{name}</Link> <span class="muted">{formatPhone(a.lead_remotejid)}</span>
        </span>
        <span class="agenda-badges">
          <span class={`badge appointment-${a.status}`}>{t.agenda.status[a.status] ?? a.status}</span>
          <span class={`badge origin-${a.origem}`}>{t.agenda.origin[a.origem] ?? a.origem}</span>
        </span>
      </div>
      {a.status === 'cancelado' ? null : (
        <fieldset class="button-row agenda-actions">
          <legend class="visually-hidden">{t.agenda.actionsOf(name)}</legend>
          {holding(a) ? (
            <>
              <button
                type="button"
                class="button"
                disabled={busy}
                aria-expanded={mode === 'move'}
                onClick={() => setMode(mode === 'move' ? null : 'move')}
              >
                {t.agenda.move}
              </button>
              <button type="button" class="button button-danger" disabled={busy} onClick={() => setMode('cancel')}>
                {t.agenda.cancel}
              </button>
            </>
          ) : null}
          <button
            type="button"
            class="button"
            disabled={busy || a.status === 'compareceu'}
            onClick={() => run('presenca', { status: 'compareceu' }, () => t.agenda.done.compareceu(name))}
          >
            {t.agenda.attended}
          </button>
          <button
            type="button"
            class="button"
            disabled={busy || a.status === 'faltou'}
            onClick={() => run('presenca', { status: 'faltou' }, () => t.agenda.done.faltou(name))}
          >
            {t.agenda.noShow}
          </button>
        </fieldset>
      )}
      {mode === 'move' ? (
        <MovePanel
          appointment={a}
          clinicId={clinicId}
          busy={busy}
          onMove={(slot) => run('mover', { inicio: slot.inicio }, (answer) => t.agenda.done.remarcado(name, answer.agendamento.texto))}
        />
      ) : null}
      {mode === 'cancel' ? (
        <ConfirmDialog
          title={t.agenda.cancelTitle}
          text={t.agenda.cancelText(name, a.texto)}
          confirmLabel={t.agenda.cancelConfirm}
          cancelLabel={t.agenda.keep}
          danger
          busy={busy}
          onConfirm={() => run('cancelar', {}, () => t.agenda.done.cancelado(name))}
          onCancel={() => setMode(null)}
        />
      ) : null}
    </li>
  );
}

function MovePanel({
  appointment,
  clinicId,
  busy,
  onMove,
}: {
  appointment: AgendaAppointment;
  clinicId: number;
  busy: boolean;
  onMove: (slot: AgendaSlot) => void;
}) {
  const [day, setDay] = useState(appointment.local_inicio.slice(0, 10));
  const [slot, setSlot] = useState<AgendaSlot | null>(null);
  return (
    <fieldset class="agenda-move">
      <legend class="visually-hidden">{t.agenda.moveHeading(leadName(appointment))}</legend>
      <SlotPicker
        clinicId={clinicId}
        leadId={appointment.lead_id}
        day={day}
        onDay={(d) => {
          setDay(d);
          setSlot(null);
        }}
        chosen={slot}
        onChoose={setSlot}
      />
      <button type="button" class="button button-primary" disabled={!slot || busy} onClick={() => slot && onMove(slot)}>
        {slot ? t.agenda.moveConfirm(slot.hora) : t.agenda.move}
      </button>
    </fieldset>
  );
}
