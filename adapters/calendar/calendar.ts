// The calendar a clinic books its evaluations in (CONTRACT §12, `clinicas_com_atendentes.agenda`):
// one interface, three providers chosen per clinic —
//   interno  LeadFlow's own slots (the grid of §12 from the clinic's hours) and nothing outside;
//   google   Google Calendar API v3: the same grid minus the calendar's busy times (freeBusy), each
//            appointment an event whose id LeadFlow chooses from the appointment (a retry after a crash
//            meets 409 and finds it);
//   calcom   Cal.com API v2: the slots Cal.com lists for the event type, each appointment a booking
//            (found again by its `metadata.leadflowAgendamento` after a crash).
// The appointment itself is always a row of `agendamentos` (CONTRACT §12): a provider keeps the
// outside copy in step with it, keyed by the row's id, so every call below is safe to repeat.
//
// Units: instants are ms since the epoch (UTC); durations are minutes where named `_min`, else ms.
// Errors: CalendarUnavailableError when the provider cannot be reached or refuses for a reason that is
// not the slot (401/403 credentials, 429, 5xx, timeout, network): the caller answers "não consegui ver
// a agenda agora"; SlotUnavailableError when the provider says the time is not free (taken, outside its
// notice): the caller offers alternatives. Never a credential in a message, log line or record.

/** A span of time: `start` inclusive, `end` exclusive, ms since the epoch. */
export interface Interval {
  start: number;
  end: number;
}

/** Where a provider looks for availability. */
export interface AvailabilityQuery {
  /** The span to look in, ms since the epoch. */
  from: number;
  to: number;
  /** Length of one appointment, minutes (agenda's `duracao_min`). */
  duration_min: number;
  /** The clinic's IANA time zone (its hours'). */
  time_zone: string;
}

/**
 * What a provider says about a span: `grid` (interno: LeadFlow's own grid decides, nothing is busy
 * outside it), `busy` (google: the grid minus these busy windows), or `slots` (calcom: exactly these
 * start times are bookable, each `duration_min` long).
 */
export type Availability = { kind: 'grid' } | { kind: 'busy'; busy: Interval[] } | { kind: 'slots'; slots: Interval[] };

/** One appointment as a provider receives it: the `agendamentos` row's id is its key everywhere. */
export interface ProviderAppointment {
  /** `agendamentos.id`: a repeated call for the same id finds what the first one made. */
  appointment_id: number;
  clinic_id: number;
  /** ms since the epoch; `end` = `start` + `duracao_min`. */
  start: number;
  end: number;
  /** The clinic's IANA time zone. */
  time_zone: string;
  /** The lead's name as known (may be empty) and phone (digits with country code). */
  lead_name: string;
  lead_phone: string;
  /** The clinic's name, for the event's title. */
  clinic_name: string;
}

/** What the provider keeps of an appointment: its event id or booking uid (null for interno). */
export interface ProviderRef {
  external_id: string | null;
}

/**
 * The outside calendar of one clinic. Every method is idempotent per `appointment_id` (a call repeated
 * after a crash leaves one event or booking), rejects with CalendarUnavailableError or
 * SlotUnavailableError (see the file's head) and stops when `signal` aborts.
 */
export interface CalendarProvider {
  readonly provider: 'interno' | 'google' | 'calcom';
  /** What is free in `query`'s span (see Availability). */
  availability(query: AvailabilityQuery, signal?: AbortSignal): Promise<Availability>;
  /**
   * Creates the outside copy of the appointment, or finds the one an earlier call made for the same
   * `appointment_id`; resolves to its reference.
   */
  create(appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef>;
  /** Moves the copy `ref` names to the appointment's new times; resolves to its reference (Cal.com gives a new uid). */
  move(ref: ProviderRef, appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef>;
  /** Cancels (Cal.com) or deletes (Google) the copy; one already gone counts as done. */
  cancel(ref: ProviderRef, appointment: ProviderAppointment, reason: string, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: the lead's erasure (`excluir`): what the copy holds of the lead blanked where the
   * provider keeps what it deletes (Google keeps deleted events in the calendar's trash), then as
   * `cancel`. Without it, the eraser calls `cancel`. One already gone counts as done.
   */
  erase?(ref: ProviderRef, appointment: ProviderAppointment, signal?: AbortSignal): Promise<void>;
}

/** The provider cannot be reached or refused for a reason other than the time (see the file's head). */
export class CalendarUnavailableError extends Error {
  /** Why, without any credential: e.g. `google: HTTP 503`, `calcom: timeout after 5000 ms`. */
  constructor(message: string) {
    super(message);
    this.name = 'CalendarUnavailableError';
  }
}

/** The provider says the time asked for is not free (taken, in the past, outside its notice or window). */
export class SlotUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlotUnavailableError';
  }
}
