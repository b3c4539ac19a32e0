// The calendar node types: changes to a lead's appointment through the booking store.
import { nodeList } from '../../engine/registry.js';
import bookingChange from './booking-change.js';

/** The calendar node types: `booking.change`. */
export const calendarNodes = nodeList(bookingChange);
