// Signing in as an account and changing one's own password (CONTRACT.md §13), beside the admin
// token's sign-in (access.ts, which routes here a body with `email`).
//   POST /admin/session {email, password}  200 SessionResponse + cookie (a new session id every
//        time); 401 {error: "email ou senha incorretos"} alike for an unknown email, a wrong password
//        and a disabled account (the hash runs in every case, so the time does not tell); 429 while
//        the email is locked out (sign-in-limit.ts); 422 without a string email and password.
//   POST /admin/session/password {current, password}  204; the signed-in account only (403 for the
//        admin token), 401 a wrong `current`, 422 a new password outside 10..200 characters.
// Audit: login, login_falhou (with the account's id when the email is one; detalhes.motivo
// `senha` | `bloqueado`), senha_alterada.
import type { Request, Response } from 'express';
import type { Database } from '../../adapters/db/database.js';
import { recordAudit } from './audit.js';
import { sendApiError, sendInvalid } from './lead-rows.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyNothing, verifyPassword } from './passwords.js';
import type { PasswordChangeRequest } from './people-api-types.js';
import { principalOf } from './principal.js';
import { LOCKOUT_MS, type SignInLimit } from './sign-in-limit.js';
import { accountByEmail, accountById, normalEmail, setPassword, toPrincipal, toSessionUser } from './users.js';
import type { SessionUser } from './people-api-types.js';

/** The one answer of a failed sign-in, whatever failed. */
export const SIGN_IN_FAILED = 'email ou senha incorretos';
/** The answer while an email is locked out. */
export const SIGN_IN_LOCKED = 'muitas tentativas erradas; tente de novo em 15 minutos';

/** What the account sign-in needs. */
export interface AccountSignInDeps {
  db: Database;
  limit: SignInLimit;
}

/**
 * Checks an `{email, password}` sign-in and answers every failure itself (401, 422, 429, audited);
 * resolves with the signed-in user when the caller should start the session.
 */
export async function checkAccountSignIn({ db, limit }: AccountSignInDeps, req: Request, res: Response): Promise<SessionUser | undefined> {
  const { email, password } = req.body as { email?: unknown; password?: unknown };
  const problems = [];
  if (typeof email !== 'string' || email.length > 254)
    problems.push({ path: 'email', message: 'must be a string of at most 254 characters' });
  if (typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH)
    problems.push({ path: 'password', message: `must be a string of at most ${MAX_PASSWORD_LENGTH} characters` });
  if (typeof email !== 'string' || typeof password !== 'string' || problems.length > 0) {
    sendInvalid(res, 'invalid input', problems);
    return undefined;
  }
  const key = normalEmail(email);
  const account = await accountByEmail(db, key);
  if (await limit.locked(key)) {
    await recordAudit(db, null, { acao: 'login_falhou', detalhes: { motivo: 'bloqueado' } }, account?.id ?? null);
    res.set('Retry-After', String(LOCKOUT_MS / 1000));
    sendApiError(res, 429, SIGN_IN_LOCKED);
    return undefined;
  }
  const matches = account ? await verifyPassword(password, account.senha_hash) : await verifyNothing(password);
  if (!account || !matches || account.desativado_at !== null) {
    await limit.fail(key);
    await recordAudit(db, null, { acao: 'login_falhou', detalhes: { motivo: 'senha' } }, account?.id ?? null);
    sendApiError(res, 401, SIGN_IN_FAILED);
    return undefined;
  }
  await limit.clear(key);
  await recordAudit(db, toPrincipal(account), { acao: 'login' });
  return toSessionUser(account);
}

/** `POST /session/password`: the signed-in account changes its own password (see the header). */
export async function changeOwnPassword(db: Database, req: Request, res: Response): Promise<void> {
  const principal = principalOf(res);
  if (principal.kind !== 'user') return void sendApiError(res, 403, 'o token de administração não tem senha para trocar');
  const { current, password } = (req.body ?? {}) as Partial<Record<keyof PasswordChangeRequest, unknown>>;
  const problems = [];
  if (typeof current !== 'string' || current.length > MAX_PASSWORD_LENGTH)
    problems.push({ path: 'current', message: 'informe a senha atual' });
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    problems.push({ path: 'password', message: `a nova senha deve ter de ${MIN_PASSWORD_LENGTH} a ${MAX_PASSWORD_LENGTH} caracteres` });
  if (problems.length > 0) return void sendInvalid(res, 'dados inválidos', problems);
  const account = await accountById(db, principal.id);
  if (!account || !(await verifyPassword(current as string, account.senha_hash)))
    return void sendApiError(res, 401, 'a senha atual está incorreta');
  await setPassword(db, account.id, password as string);
  await recordAudit(db, principal, { acao: 'senha_alterada' });
  res.status(204).end();
}
