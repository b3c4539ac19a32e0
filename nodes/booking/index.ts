// Booking node types (CONTRACT §12): the few steps of the appointment flows (reminders, erasure) that
// need the booking store or the clinic's calendar time zone, and the console's agenda changes
// (booking.change). The agent's tools live in nodes/lead/.
import { nodeList } from '../../engine/registry.js';
import change from './change.js';
import eraseLead from './erase-lead.js';
import label from './label.js';

/** The booking node types: `booking.label`, `booking.erase-lead`, `booking.change` (the console's agenda changes). */
export const bookingNodes = nodeList(label, eraseLead, change);
