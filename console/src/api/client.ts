// The browser's only way to the server: JSON over fetch to /admin/*, with the session cookie
// (same origin) and, on every request that is not GET/HEAD, the session's X-CSRF-Token.
// A 401 from any call but the sign-in itself ends the session in the app (onSignedOut). A failure's
// message is already for a receptionist (the API's English `error` through apiErrorText).
import type { ApiError, SessionResponse } from '../../server/api-types.js';
import type { PasswordChangeRequest, SessionUser } from '../../server/people-api-types.js';
import { t } from '../i18n/index.js';
import { apiErrorText } from '../i18n/server-texts.js';

/** A request that did not succeed: `status` 0 when the server could not be reached; `message` in the console's language, `serverError` the API's own text. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly serverError = '',
    /** The answer's JSON body, when it had one (e.g. a 409's `reason`). */
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

let csrfToken: string | null = null;
/** Who is signed in: an account, or null for the admin token (or while signed out). */
let currentUser: SessionUser | null = null;
/** Whether the server has console accounts (the last signed-out GET /admin/session said `contas: true`). */
let accountsExist = true;

/** True when the server said it has console accounts (the sign-in page then asks for email and password first). */
export function serverHasAccounts(): boolean {
  return accountsExist;
}

/** The signed-in account, or null when the session is the admin token's. */
export function signedInUser(): SessionUser | null {
  return currentUser;
}

/** True when the signed-in principal may use the admins' sections (executions, flows, Pessoas, audit). */
export function signedInAsAdmin(): boolean {
  return currentUser === null || currentUser.papel === 'admin';
}
let signedOutListener: (() => void) | null = null;

/** Called once by the app: what to do when the server says the session is gone. */
export function onSignedOut(listener: () => void): void {
  signedOutListener = listener;
}

/** A user-readable description of a failure, in the active language. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiFailure) return error.status === 0 ? t.common.networkError : error.message;
  return error instanceof Error ? error.message : String(error);
}

async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiFailure(0, t.common.networkError);
  }
  if (response.status === 204) return undefined as T;
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const serverError = (payload as ApiError | null)?.error ?? '';
    throw new ApiFailure(
      response.status,
      apiErrorText(response.status, typeof serverError === 'string' ? serverError : ''),
      String(serverError),
      payload,
    );
  }
  return payload as T;
}

/** A JSON call to the admin API; a 401 signs the app out before it is thrown. */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  try {
    return await send<T>(method, path, body);
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      csrfToken = null;
      signedOutListener?.();
    }
    throw error;
  }
}

/** Whether the browser holds a live session; keeps its CSRF token. */
export async function checkSession(): Promise<boolean> {
  try {
    const status = await send<SessionResponse>('GET', '/admin/session');
    csrfToken = status.csrf;
    currentUser = status.user ?? null;
    return true;
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      accountsExist = (error.body as { contas?: unknown } | null)?.contas === true;
      return false;
    }
    throw error;
  }
}

/** Signs in with the admin token; throws ApiFailure 401 on a wrong token. */
export async function signIn(token: string): Promise<void> {
  const created = await send<SessionResponse>('POST', '/admin/session', { token });
  csrfToken = created.csrf;
  currentUser = null;
}

/** Signs in as an account; throws ApiFailure 401 on a wrong email or password, 429 while locked out. */
export async function signInWithPassword(email: string, password: string): Promise<void> {
  const created = await send<SessionResponse>('POST', '/admin/session', { email, password });
  csrfToken = created.csrf;
  currentUser = created.user ?? null;
}

/** Changes the signed-in account's password; ApiFailure 401 means a wrong current password (the session stays). */
export function changePassword(body: PasswordChangeRequest): Promise<void> {
  return send<void>('POST', '/admin/session/password', body);
}

/** Ends the session on the server (best effort) and forgets the CSRF token. */
export async function signOut(): Promise<void> {
  try {
    await send<void>('DELETE', '/admin/session');
  } finally {
    csrfToken = null;
    currentUser = null;
  }
}

/** A query string from the given values, leaving out empty ones (with the leading `?`, or ''). */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
