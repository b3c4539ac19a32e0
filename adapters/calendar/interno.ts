// The `interno` calendar (CONTRACT.md §12): LeadFlow's own. Availability is the grid alone (the
// clinic's hours and its `agendamentos` rows, slot-grid.ts); the appointment is only its row, so
// there is nothing outside to create, move or cancel, and nothing that can be unavailable.
import type { Availability, CalendarProvider, ProviderRef } from './calendar.js';

const NO_REF: ProviderRef = { external_id: null };

/** The interno provider: availability `{kind: 'grid'}`; create, move and cancel do nothing (external_id null). */
export function internoCalendar(): CalendarProvider {
  return {
    provider: 'interno',
    async availability(): Promise<Availability> {
      return { kind: 'grid' };
    },
    async create(): Promise<ProviderRef> {
      return { ...NO_REF };
    },
    async move(): Promise<ProviderRef> {
      return { ...NO_REF };
    },
    async cancel(): Promise<void> {},
  };
}
