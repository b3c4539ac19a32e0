// Booking node types (CONTRACT §12): the few steps of the appointment flows (reminders, erasure) that
// need the booking store or the clinic's calendar time zone. The agent's tools live in nodes/lead/.
import { nodeList } from '../../engine/registry.js';
import eraseLead from './erase-lead.js';
import label from './label.js';

/** The booking node types: `booking.label`, `booking.erase-lead`. */
export const bookingNodes = nodeList(label, eraseLead);
