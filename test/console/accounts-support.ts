// Helpers of the accounts and roles tests: an account made straight in the stack's database (its
// generated password returned), signing in as it, and a second clinic with its own lead.
import { expect } from 'vitest';
import { createAccount } from '../../console/server/users.js';
import type { Papel } from '../../console/server/people-api-types.js';
import type { Stack } from '../e2e/stack.js';
import type { SignedIn } from './support.js';

export interface TestAccount {
  id: number;
  email: string;
  password: string;
}

/** Creates an account of `papel` (clinics `clinicas`) and returns it with its password. */
export async function makeAccount(stack: Stack, email: string, papel: Papel, clinicas: number[] = []): Promise<TestAccount> {
  const { account, password } = await createAccount(stack.runtime.db, { email, nome: `Pessoa ${papel}`, papel, clinica_ids: clinicas });
  return { id: account.id, email: account.email, password };
}

/** `POST /admin/session {email, password}` as-is (no assertion). */
export function postSignIn(stack: Stack, email: string, password: string): Promise<Response> {
  return stack.post('/admin/session', { email, password });
}

/** Signs in as the account (asserting 200) and returns its cookie and CSRF token. */
export async function signInAs(stack: Stack, account: { email: string; password: string }): Promise<SignedIn> {
  const res = await postSignIn(stack, account.email, account.password);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { csrf: string };
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrf, setCookie };
}

/** A second clinic (named "Clínica Dois") of the stack; resolves with its id. */
export async function secondClinic(stack: Stack): Promise<number> {
  return Number((await stack.runtime.db.insert('clinicas_com_atendentes', { nome: 'Clínica Dois' })).id);
}
