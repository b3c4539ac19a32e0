// Console accounts (CONTRACT.md §13, table `usuarios`): the one place that reads and writes them, for
// the CLI (`leadflow users …`), the sign-in (access.ts) and the Pessoas API (users-api.ts).
// Emails are stored trimmed and lowercase (a sign-in matches any case); `clinica_ids` is JSON text,
// `[]` for `admin` (every clinic); a password only ever lands as its hash (passwords.ts).
// Every check happens before anything is written: a refused change changes nothing.
import type { Database } from '../../adapters/db/database.js';
import { generatePassword, hashPassword } from './passwords.js';
import type { Papel, SessionUser, UserCreateRequest, UserSummary } from './people-api-types.js';
import type { UserPrincipal } from './principal.js';

/** Every role an account can have. */
export const PAPEIS: readonly Papel[] = ['admin', 'equipe', 'hunter'];
/** Longest email (RFC 5321) and name accepted. */
const MAX_EMAIL = 254;
const MAX_NOME = 120;

/** A refused account change: `path` names the field, `status` the HTTP answer (404, 409, 422). */
export class AccountError extends Error {
  constructor(
    readonly status: 404 | 409 | 422,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

/** An account row as the code uses it (the hash kept apart from what is shown). */
export interface Account extends UserSummary {
  senha_hash: string;
}

/** `email` as stored: trimmed, lowercase. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

function iso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  return new Date(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text) ? `${text.replace(' ', 'T')}Z` : text).toISOString();
}

function clinicIdsOf(text: unknown): number[] {
  try {
    const parsed: unknown = JSON.parse(String(text ?? '[]'));
    return Array.isArray(parsed) ? parsed.filter((n): n is number => Number.isSafeInteger(n)) : [];
  } catch {
    return [];
  }
}

function toAccount(row: Record<string, unknown>): Account {
  const papel = row.papel as Papel;
  return {
    id: Number(row.id),
    email: String(row.email),
    nome: String(row.nome),
    papel,
    clinica_ids: papel === 'admin' ? [] : clinicIdsOf(row.clinica_ids),
    desativado_at: row.desativado_at === null || row.desativado_at === undefined ? null : iso(row.desativado_at),
    created_at: iso(row.created_at),
    senha_hash: String(row.senha_hash),
  };
}

/** What an account shows (UserSummary: never the hash). */
export function toSummary({ senha_hash: _hash, ...summary }: Account): UserSummary {
  return summary;
}

/** Who an account is to a session (SessionUser). */
export function toSessionUser(a: Account): SessionUser {
  return { id: a.id, email: a.email, nome: a.nome, papel: a.papel, clinica_ids: a.clinica_ids };
}

/** The request's principal for an active account. */
export function toPrincipal(a: Account): UserPrincipal {
  return { kind: 'user', ...toSessionUser(a) };
}

const now = (db: Database): Date | string => (db.dialect === 'postgres' ? new Date() : new Date().toISOString());

/** Every account, by id. */
export async function listAccounts(db: Database): Promise<Account[]> {
  const rows = (await db.knex('usuarios').select('*').orderBy('id', 'asc')) as Array<Record<string, unknown>>;
  return rows.map(toAccount);
}

/** The account with this email (any case), or undefined. */
export async function accountByEmail(db: Database, email: string): Promise<Account | undefined> {
  const row = (await db.knex('usuarios').where('email', normalEmail(email)).first()) as Record<string, unknown> | undefined;
  return row ? toAccount(row) : undefined;
}

/** The account with this id, or undefined. */
export async function accountById(db: Database, id: number): Promise<Account | undefined> {
  const row = (await db.knex('usuarios').where('id', id).first()) as Record<string, unknown> | undefined;
  return row ? toAccount(row) : undefined;
}

/** The checked fields of a new account, or an AccountError naming the first bad one. */
async function checkNew(
  db: Database,
  input: UserCreateRequest,
): Promise<{ email: string; nome: string; papel: Papel; clinicas: number[] }> {
  const email = typeof input.email === 'string' ? normalEmail(input.email) : '';
  if (email.length > MAX_EMAIL || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw new AccountError(422, 'email', 'email inválido (ex.: maria@clinica.com.br)');
  const nome = typeof input.nome === 'string' ? input.nome.trim() : '';
  if (nome.length < 1 || nome.length > MAX_NOME) throw new AccountError(422, 'nome', `informe o nome (1 a ${MAX_NOME} caracteres)`);
  if (!PAPEIS.includes(input.papel)) throw new AccountError(422, 'papel', `papel deve ser um de: ${PAPEIS.join(', ')}`);
  const raw = input.clinica_ids ?? [];
  if (!Array.isArray(raw) || raw.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new AccountError(422, 'clinica_ids', 'clinica_ids deve ser uma lista de ids de clínica');
  const clinicas = input.papel === 'admin' ? [] : [...new Set(raw)].sort((a, b) => a - b);
  if (input.papel !== 'admin' && clinicas.length === 0)
    throw new AccountError(422, 'clinica_ids', `o papel ${input.papel} precisa de pelo menos uma clínica`);
  if (clinicas.length > 0) {
    const found = (await db.knex('clinicas_com_atendentes').whereIn('id', clinicas).select('id')) as Array<{ id: number }>;
    const known = new Set(found.map((r) => Number(r.id)));
    const unknown = clinicas.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new AccountError(422, 'clinica_ids', `clínica desconhecida: ${unknown.join(', ')}`);
  }
  if (await accountByEmail(db, email)) throw new AccountError(409, 'email', 'já existe uma conta com esse email');
  return { email, nome, papel: input.papel, clinicas };
}

/** Creates an account with a generated password; returns it and the password (shown once). */
export async function createAccount(db: Database, input: UserCreateRequest): Promise<{ account: Account; password: string }> {
  const fields = await checkNew(db, input);
  const password = generatePassword();
  const senha_hash = await hashPassword(password);
  try {
    await db.knex('usuarios').insert({
      email: fields.email,
      nome: fields.nome,
      papel: fields.papel,
      senha_hash,
      clinica_ids: JSON.stringify(fields.clinicas),
      created_at: now(db),
    });
  } catch (err) {
    // Two creations of one email at once: the unique index decides.
    if (await accountByEmail(db, fields.email)) throw new AccountError(409, 'email', 'já existe uma conta com esse email');
    throw err;
  }
  return { account: (await accountByEmail(db, fields.email))!, password };
}

/** Disables an account (its sessions end at their next request); disabling it again changes nothing. */
export async function disableAccount(db: Database, id: number): Promise<Account> {
  const account = await accountById(db, id);
  if (!account) throw new AccountError(404, 'id', 'conta não encontrada');
  if (account.desativado_at === null)
    await db
      .knex('usuarios')
      .where('id', id)
      .update({ desativado_at: now(db) });
  return (await accountById(db, id))!;
}

/** Stores `password`'s hash as the account's (the caller checked the account and the password). */
export async function setPassword(db: Database, id: number, password: string): Promise<void> {
  await db
    .knex('usuarios')
    .where('id', id)
    .update({ senha_hash: await hashPassword(password) });
}

/** Gives an account a new generated password; returns it (shown once). */
export async function resetPassword(db: Database, id: number): Promise<{ account: Account; password: string }> {
  const account = await accountById(db, id);
  if (!account) throw new AccountError(404, 'id', 'conta não encontrada');
  const password = generatePassword();
  await setPassword(db, id, password);
  return { account: (await accountById(db, id))!, password };
}
