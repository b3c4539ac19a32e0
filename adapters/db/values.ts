// Conversion of column values between JSON (what flows see) and what each dialect binds and returns.
// In: booleans bind as 1/0 on SQLite and true/false on PostgreSQL; JSON columns bind as JSON text;
// timestamps bind as ISO 8601 UTC text with milliseconds (accepted: ISO text, ms since the epoch,
// Date). Out: integers as numbers, booleans as true/false, JSON as values, timestamps as ISO text.
import type { ColumnType } from './tables.js';
import { DbQueryError } from './db-query-error.js';

/** The SQL dialect a Database talks: SQLite (embedded) or PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';

const INTEGER_TEXT = /^-?\d{1,15}$/;
/** `YYYY-MM-DD HH:MM:SS[.fff]` without a zone, as SQLite's CURRENT_TIMESTAMP writes it: UTC. */
const SQL_UTC = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)$/;
/**
 * ISO text exactly as `toISOString` writes it, with a day of the month every month has (01-28): it
 * reads back as itself, so it is its own ISO text.
 */
const CANONICAL_ISO = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
/** The same with a day 29-31: its own ISO text when its month has that day (lastDayOf); else the long way (Feb 30 is Mar 2). */
const CANONICAL_ISO_LATE_DAY = /^(\d{4})-(0[1-9]|1[0-2])-(29|30|31)T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The last day of `month` (1-12) of `year` in the proleptic Gregorian calendar Date uses (year 0 is a leap year). */
function lastDayOf(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Whether `text` is its own ISO text (CANONICAL_ISO, or a day 29-31 its month has). */
function isCanonicalIso(text: string): boolean {
  if (CANONICAL_ISO.test(text)) return true;
  const late = CANONICAL_ISO_LATE_DAY.exec(text);
  return late !== null && Number(late[3]) <= lastDayOf(Number(late[1]), Number(late[2]));
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** The ISO text of a timestamp given as ISO text, ms since the epoch or Date; undefined when invalid. */
export function toIsoTimestamp(value: unknown): string | undefined {
  if (typeof value === 'string' && isCanonicalIso(value)) return value;
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number' && Number.isFinite(value)) date = new Date(value);
  else if (typeof value === 'string' && value.trim() !== '') {
    const sql = SQL_UTC.exec(value.trim());
    date = new Date(sql ? `${sql[1]}T${sql[2]}Z` : value);
  }
  if (!date || Number.isNaN(date.getTime())) return undefined;
  return date.toISOString();
}

/** The value to bind for `column` of type `type`; throws DbQueryError when it cannot be one. */
export function toDb(dialect: Dialect, table: string, column: string, type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const bad = (expected: string) => new DbQueryError(`${table}.${column} expects ${expected}, got ${describe(value)}`);
  switch (type) {
    case 'id':
    case 'integer': {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      if (typeof value === 'string' && INTEGER_TEXT.test(value.trim())) return Number(value.trim());
      throw bad('an integer');
    }
    case 'text': {
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw bad('text');
    }
    case 'boolean': {
      let b: boolean | undefined;
      if (typeof value === 'boolean') b = value;
      else if (value === 0 || value === 1) b = value === 1;
      else if (value === 'true' || value === 'false') b = value === 'true';
      if (b === undefined) throw bad('true or false');
      return dialect === 'sqlite' ? (b ? 1 : 0) : b;
    }
    case 'json':
      return JSON.stringify(value);
    case 'timestamp': {
      const iso = toIsoTimestamp(value);
      if (iso === undefined) throw bad('a timestamp (ISO 8601 text or milliseconds since the epoch)');
      return iso;
    }
  }
}

/** The JSON value of a column as read back from either dialect. */
export function fromDb(dialect: Dialect, type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'id':
    case 'integer':
      return typeof value === 'number' ? value : Number(value);
    case 'text':
      return typeof value === 'string' ? value : String(value);
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 't' || value === 'true';
    case 'json':
      // node-postgres parses json columns itself; SQLite returns the stored text.
      if (dialect === 'postgres' || typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case 'timestamp':
      return toIsoTimestamp(value) ?? String(value);
  }
}
