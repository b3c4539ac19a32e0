// Who made an admin request (CONTRACT.md §13): the admin token (by bearer or by a session signed in
// with it) or a console account. Set by the admin router's authorization (console/server/access.ts)
// on `res.locals.principal` before any console route runs; read with principalOf.
import type { Response } from 'express';
import type { Papel } from './people-api-types.js';

/** The admin token: everything, as an `admin` account; audited with `usuario_id` null. */
export interface TokenPrincipal {
  kind: 'token';
}

/** A console account, as its row said at this request (a disabled account never gets this far). */
export interface UserPrincipal {
  kind: 'user';
  id: number;
  email: string;
  nome: string;
  papel: Papel;
  /** Its clinics (ignored for `admin`). */
  clinica_ids: number[];
}

/** Who made the request. */
export type Principal = TokenPrincipal | UserPrincipal;

/** The token's principal. */
export const TOKEN_PRINCIPAL: TokenPrincipal = { kind: 'token' };

/** The principal the authorization set on this answer; the token's when none was set (a bearer request). */
export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? TOKEN_PRINCIPAL;
}

/** True for the token and for `admin` accounts: every clinic, executions, flows, accounts and the audit. */
export function isAdmin(principal: Principal): boolean {
  return principal.kind === 'token' || principal.papel === 'admin';
}

/** The clinics a principal may see: `all` for admins, else its account's clinic ids. */
export function clinicScope(principal: Principal): 'all' | number[] {
  return isAdmin(principal) ? 'all' : (principal as UserPrincipal).clinica_ids;
}

/** The `usuario_id` of an audit row: null for the token. */
export function auditUserId(principal: Principal): number | null {
  return principal.kind === 'user' ? principal.id : null;
}

/** The name an audit row or a transcript shows for the principal. */
export function principalName(principal: Principal): string {
  return principal.kind === 'user' ? principal.nome : 'Token de administração';
}
