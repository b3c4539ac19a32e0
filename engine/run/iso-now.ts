// The current time as an ISO 8601 text (`new Date().toISOString()`), for the timestamps of execution
// and step records and the `now` of expressions: a few per step. Formatting a date costs far more
// than reading the clock, so the text up to the minute is formatted once per minute and the
// seconds and milliseconds are appended to it; the text of the latest millisecond is kept whole.

const MINUTE_MS = 60_000;

let lastMs = Number.NaN;
let lastText = '';
let minuteStart = Number.NaN;
/** `YYYY-MM-DDTHH:mm:` of the minute starting at minuteStart (a longer year for years past 9999). */
let minuteText = '';

/** `new Date().toISOString()`: the same text (millisecond precision, UTC, `Z`). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastText = isoText(ms);
    lastMs = ms;
  }
  return lastText;
}

/** `new Date(ms).toISOString()` for a valid time `ms`. */
function isoText(ms: number): string {
  const start = Math.floor(ms / MINUTE_MS) * MINUTE_MS;
  if (start !== minuteStart) {
    // Without its `ss.sssZ` (7 characters).
    minuteText = new Date(start).toISOString().slice(0, -7);
    minuteStart = start;
  }
  const withinMinute = ms - start;
  const seconds = Math.floor(withinMinute / 1000);
  const millis = withinMinute - seconds * 1000;
  return `${minuteText}${seconds < 10 ? '0' : ''}${seconds}.${millis < 100 ? (millis < 10 ? '00' : '0') : ''}${millis}Z`;
}
