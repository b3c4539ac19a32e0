// Display formats: dates and times in the active language's locale and the browser's time zone,
// durations from milliseconds, phone digits grouped, JSON as indented text.
import { t } from './i18n/index.js';

const timeFormat = new Intl.DateTimeFormat(t.locale, { hour: '2-digit', minute: '2-digit' });
const dateTimeFormat = new Intl.DateTimeFormat(t.locale, { dateStyle: 'short', timeStyle: 'short' });
const fullFormat = new Intl.DateTimeFormat(t.locale, { dateStyle: 'short', timeStyle: 'medium' });

function parse(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** HH:MM, or '' when absent or unreadable. */
export function formatTime(value: string | number | null | undefined): string {
  const date = parse(value);
  return date ? timeFormat.format(date) : '';
}

/** HH:MM alone when today, else the short date and HH:MM. */
export function formatWhen(value: string | number | null | undefined): string {
  const date = parse(value);
  if (!date) return t.common.none;
  return date.toDateString() === new Date().toDateString() ? timeFormat.format(date) : dateTimeFormat.format(date);
}

/** Date and time with seconds. */
export function formatFull(value: string | number | null | undefined): string {
  const date = parse(value);
  return date ? fullFormat.format(date) : t.common.none;
}

/** A duration: `850 ms`, `2.4 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return t.common.none;
  if (ms < 1000) return t.duration.ms(Math.round(ms));
  if (ms < 60_000) return t.duration.seconds((ms / 1000).toLocaleString(t.locale, { maximumFractionDigits: 1 }));
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return t.duration.minutes(minutes, Math.floor((ms % 60_000) / 1000));
  return t.duration.hours(Math.floor(minutes / 60), minutes % 60);
}

/** Only the digits of a phone or any text. */
export function digitsOf(text: string): string {
  return text.replace(/\D+/g, '');
}

/** A Brazilian phone as `+55 11 99999-9999` when it looks like one, else its digits. */
export function formatPhone(text: string | null | undefined): string {
  const digits = digitsOf(text ?? '');
  const match = /^55(\d{2})(\d{4,5})(\d{4})$/.exec(digits);
  return match ? `+55 ${match[1]} ${match[2]}-${match[3]}` : digits;
}

/** A value as indented JSON text (strings too, quoted), for <pre>. */
export function formatJson(value: unknown): string {
  if (value === undefined) return t.common.none;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
