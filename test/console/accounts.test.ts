// Console accounts (CONTRACT.md §13): `leadflow users …` (the hash stored, never the password; a
// refused change changes nothing), the password hash itself, the sign-in by email and password (one
// 401 for a wrong email or password, the per-email lockout by the service's clock, a new session id
// each time, the audit rows), changing one's own password, and disabling an account, which ends its
// sessions at once — also in another process on the same database and Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFromEnv } from '../../adapters/db/database.js';
import { settableClock } from '../../adapters/clock.js';
import { generatePassword, hashPassword, verifyPassword } from '../../console/server/passwords.js';
import { LOCKOUT_MS } from '../../console/server/sign-in-limit.js';
import { createTestSchema, dropTestSchema, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { DATA_DIR, removeScratch, runCli } from '../helpers/cli.js';
import { Redis } from 'ioredis';
import { deleteNamespace, randomPrefix, TEST_REDIS_URL } from '../helpers/key-values.js';
import { forEachBackend, postgresRedisProblem, type Stack, startStack } from '../e2e/stack.js';
import { makeAccount, postSignIn, signInAs } from './accounts-support.js';
import { ADMIN_TOKEN, withBearer, withSession } from './support.js';

describe('password hashes', () => {
  it('stores scrypt with N ≥ 2^15, r 8, p 1, a 16-byte salt and a 32-byte key, salted anew each time', async () => {
    const stored = await hashPassword('uma senha qualquer');
    const [name, n, r, p, salt, key] = stored.split('$');
    expect([name, Number(n) >= 2 ** 15, r, p]).toEqual(['scrypt', true, '8', '1']);
    expect([Buffer.from(salt!, 'base64url').length, Buffer.from(key!, 'base64url').length]).toEqual([16, 32]);
    expect(stored).not.toContain('uma senha qualquer');
    expect(await hashPassword('uma senha qualquer')).not.toBe(stored);
    expect(await verifyPassword('uma senha qualquer', stored)).toBe(true);
    expect(await verifyPassword('uma senha qualquer!', stored)).toBe(false);
    expect(await verifyPassword('uma senha qualquer', 'scrypt$1099511627776$8$1$x$y')).toBe(false);
  });

  it('generates readable random passwords of at least 16 characters', () => {
    const made = new Set(Array.from({ length: 50 }, generatePassword));
    expect(made.size).toBe(50);
    for (const p of made) expect(p).toMatch(/^[a-km-zA-HJ-NP-Z2-9]{5}(-[a-km-zA-HJ-NP-Z2-9]{5}){3}$/);
  });
});

describe('leadflow users', () => {
  afterAll(removeScratch);
  const rows = async () => {
    const db = databaseFromEnv({ LEADFLOW_DATA_DIR: DATA_DIR, DATABASE_URL: '' });
    try {
      return (await db.knex('usuarios').select('*').orderBy('id')) as Array<Record<string, unknown>>;
    } finally {
      await db.close();
    }
  };

  it('adds an account, printing its password once and storing only its hash', async () => {
    const added = await runCli(['users', 'add', '--email', 'Ana@Clinica.Test', '--nome', 'Ana', '--papel', 'admin']);
    expect(added.code, added.stderr).toBe(0);
    const password = /password: (\S+)/.exec(added.stdout)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(16);
    const [row] = await rows();
    expect(row).toMatchObject({ email: 'ana@clinica.test', nome: 'Ana', papel: 'admin' });
    expect(String(row!.senha_hash)).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain(password);
    expect(await verifyPassword(password, String(row!.senha_hash))).toBe(true);
    const list = await runCli(['users', 'list']);
    expect(list.stdout).toContain('ana@clinica.test');
    expect(list.stdout).not.toContain(password);
  });

  it('refuses a bad role, equipe without a clinic, an unknown clinic and a taken email: exit ≠ 0, nothing changed', async () => {
    const before = await rows();
    const refused = [
      ['--email', 'b@clinica.test', '--nome', 'B', '--papel', 'chefe'],
      ['--email', 'b@clinica.test', '--nome', 'B', '--papel', 'equipe'],
      ['--email', 'b@clinica.test', '--nome', 'B', '--papel', 'hunter', '--clinica', '999'],
      ['--email', 'b@clinica.test', '--nome', 'B', '--papel', 'hunter', '--clinica', 'um'],
      ['--email', 'ANA@clinica.test', '--nome', 'Outra', '--papel', 'admin'],
    ];
    const messages = [/chefe/, /precisa de pelo menos uma clínica/, /clínica desconhecida: 999/, /--clinica/, /já existe uma conta/];
    for (const [i, args] of refused.entries()) {
      const result = await runCli(['users', 'add', ...args]);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr, args.join(' ')).toMatch(messages[i]!);
      expect(result.stdout).not.toMatch(/password:/);
    }
    expect(await rows()).toEqual(before);
    const help = await runCli(['users', 'add', '--help']);
    expect(help.stdout).toMatch(/--papel <papel>[\s\S]*admin[\s\S]*--clinica <id>/);
  });

  it('resets a password (a new one printed, the old one no longer matches) and disables an account', async () => {
    const [before] = await rows();
    const reset = await runCli(['users', 'reset-password', 'ana@CLINICA.test']);
    expect(reset.code, reset.stderr).toBe(0);
    const password = /password: (\S+)/.exec(reset.stdout)?.[1] ?? '';
    const [after] = await rows();
    expect(after!.senha_hash).not.toBe(before!.senha_hash);
    expect(await verifyPassword(password, String(after!.senha_hash))).toBe(true);
    expect((await runCli(['users', 'disable', 'ana@clinica.test'])).code).toBe(0);
    expect((await rows())[0]!.desativado_at).not.toBeNull();
    const unknown = await runCli(['users', 'disable', 'ninguem@clinica.test']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringMatching(/no account with email ninguem@clinica.test/)]);
  });
});

forEachBackend('console sign-in by account', (backend) => {
  const clock = settableClock();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend, clock, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(() => stack?.close());

  const audit = async (acao: string) =>
    (await stack.runtime.db.knex('auditoria').where('acao', acao).orderBy('id')) as Array<{ usuario_id: number | null; detalhes: string }>;

  it('answers a wrong email and a wrong password with the same 401, and audits both', async () => {
    const maria = await makeAccount(stack, 'maria@clinica.test', 'equipe', [stack.clinic.id]);
    const wrongPassword = await postSignIn(stack, 'MARIA@clinica.test', 'nao-e-esta-senha');
    const wrongEmail = await postSignIn(stack, 'ninguem@clinica.test', maria.password);
    expect([wrongPassword.status, wrongEmail.status]).toEqual([401, 401]);
    expect(await wrongPassword.json()).toEqual(await wrongEmail.json());
    expect([wrongPassword.headers.get('set-cookie'), wrongEmail.headers.get('set-cookie')]).toEqual([null, null]);
    expect((await audit('login_falhou')).map((r) => r.usuario_id)).toEqual([maria.id, null]);
    const noPassword = await stack.post('/admin/session', { email: maria.email });
    expect([noPassword.status, ((await noPassword.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)]).toEqual([
      422,
      ['password'],
    ]);
    expect((await postSignIn(stack, ' Maria@Clinica.Test ', maria.password)).status).toBe(200);
    expect((await audit('login')).map((r) => r.usuario_id)).toContain(maria.id);
  });

  it('locks an email out after five failures within 15 minutes, for 15 minutes by the service clock', async () => {
    const start = Date.parse('2026-05-04T12:00:00Z');
    clock.set(start);
    const joao = await makeAccount(stack, 'joao@clinica.test', 'hunter', [stack.clinic.id]);
    for (let i = 0; i < 5; i++) expect((await postSignIn(stack, joao.email, `errada-${i}`)).status).toBe(401);
    const locked = await postSignIn(stack, joao.email, joao.password);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('set-cookie')).toBeNull();
    expect(locked.headers.get('retry-after')).toBe(String(LOCKOUT_MS / 1000));
    // Another email is not locked; an unknown email locks the same way (the answer tells nothing).
    expect((await postSignIn(stack, 'maria@clinica.test', 'errada')).status).toBe(401);
    for (let i = 0; i < 5; i++) await postSignIn(stack, 'fantasma@clinica.test', 'errada');
    expect((await postSignIn(stack, 'fantasma@clinica.test', 'errada')).status).toBe(429);
    clock.set(start + LOCKOUT_MS - 60_000);
    expect((await postSignIn(stack, joao.email, joao.password)).status).toBe(429);
    clock.set(start + LOCKOUT_MS + 60_000);
    expect((await postSignIn(stack, joao.email, joao.password)).status).toBe(200);
    // Failures spread over more than 15 minutes do not add up.
    for (let i = 0; i < 4; i++) expect((await postSignIn(stack, joao.email, 'errada')).status).toBe(401);
    clock.set(start + 2 * LOCKOUT_MS + 2 * 60_000);
    expect((await postSignIn(stack, joao.email, 'errada')).status).toBe(401);
    expect((await postSignIn(stack, joao.email, joao.password)).status).toBe(200);
  });

  it('gives a new session id at every sign-in and says who is signed in', async () => {
    const ana = await makeAccount(stack, 'ana.sessao@clinica.test', 'equipe', [stack.clinic.id]);
    const first = await signInAs(stack, ana);
    const second = await signInAs(stack, ana);
    expect(first.cookie).not.toBe(second.cookie);
    expect(first.csrf).not.toBe(second.csrf);
    const me = (await (await withSession(stack, second, '/admin/session')).json()) as { user: unknown };
    expect(me.user).toEqual({ id: ana.id, email: ana.email, nome: 'Pessoa equipe', papel: 'equipe', clinica_ids: [stack.clinic.id] });
    const token = (await (await stack.post('/admin/session', { token: ADMIN_TOKEN })).json()) as { user: unknown };
    expect(token.user).toBeNull();
    expect((await withSession(stack, first, '/admin/session', { method: 'DELETE' })).status).toBe(204);
    expect((await audit('logout')).map((r) => r.usuario_id)).toContain(ana.id);
  });

  it('changes its own password: the current one checked, the new one 10..200 characters', async () => {
    const bia = await makeAccount(stack, 'bia@clinica.test', 'hunter', [stack.clinic.id]);
    const session = await signInAs(stack, bia);
    const change = (body: unknown) => withSession(stack, session, '/admin/session/password', { method: 'POST', body });
    expect((await change({ current: 'errada', password: 'uma-nova-senha-boa' })).status).toBe(401);
    expect((await change({ current: bia.password, password: 'curta' })).status).toBe(422);
    expect((await change({ current: bia.password, password: 'uma-nova-senha-boa' })).status).toBe(204);
    expect((await postSignIn(stack, bia.email, bia.password)).status).toBe(401);
    expect((await postSignIn(stack, bia.email, 'uma-nova-senha-boa')).status).toBe(200);
    expect((await audit('senha_alterada')).map((r) => r.usuario_id)).toContain(bia.id);
    const tokenSession = await stack.post('/admin/session', { token: ADMIN_TOKEN });
    const cookie = (tokenSession.headers.get('set-cookie') ?? '').split(';')[0]!;
    const { csrf } = (await tokenSession.json()) as { csrf: string };
    const byToken = await withSession(stack, { cookie, csrf, setCookie: '' }, '/admin/session/password', {
      method: 'POST',
      body: { current: 'x', password: 'uma-nova-senha-boa' },
    });
    expect(byToken.status).toBe(403);
  });

  it('ends a disabled account’s sessions at once, and its sign-in answers the same 401', async () => {
    const caio = await makeAccount(stack, 'caio@clinica.test', 'equipe', [stack.clinic.id]);
    const session = await signInAs(stack, caio);
    expect((await withSession(stack, session, '/admin/leads')).status).toBe(200);
    const disabled = await withBearer(stack, `/admin/users/${caio.id}/disable`, { method: 'POST' });
    expect(disabled.status).toBe(200);
    expect((await withSession(stack, session, '/admin/leads')).status).toBe(401);
    expect((await withSession(stack, session, '/admin/session')).status).toBe(401);
    const again = await postSignIn(stack, caio.email, caio.password);
    expect([again.status, await again.json()]).toEqual([401, { error: 'email ou senha incorretos', details: [] }]);
    expect((await audit('usuario_desativado')).map((r) => JSON.parse(r.detalhes).conta_id)).toContain(caio.id);
  });

  it('creates and resets accounts through the API, the password shown once and never listed', async () => {
    const created = await withBearer(stack, '/admin/users', {
      method: 'POST',
      body: { email: 'Nova@Clinica.test', nome: 'Nova', papel: 'hunter', clinica_ids: [stack.clinic.id] },
    });
    expect(created.status).toBe(201);
    const { user, password } = (await created.json()) as { user: { id: number; email: string }; password: string };
    expect(user.email).toBe('nova@clinica.test');
    expect((await postSignIn(stack, 'nova@clinica.test', password)).status).toBe(200);
    const listed = await (await withBearer(stack, '/admin/users')).text();
    expect(listed).not.toContain(password);
    expect(listed).not.toContain('scrypt');
    const reset = await withBearer(stack, `/admin/users/${user.id}/reset-password`, { method: 'POST' });
    const fresh = ((await reset.json()) as { password: string }).password;
    expect([reset.status, fresh === password]).toEqual([200, false]);
    expect((await postSignIn(stack, 'nova@clinica.test', password)).status).toBe(401);
    expect((await postSignIn(stack, 'nova@clinica.test', fresh)).status).toBe(200);
    const taken = await withBearer(stack, '/admin/users', {
      method: 'POST',
      body: { email: 'nova@clinica.test', nome: 'X', papel: 'admin' },
    });
    expect(taken.status).toBe(409);
    const noClinic = await withBearer(stack, '/admin/users', {
      method: 'POST',
      body: { email: 'y@clinica.test', nome: 'Y', papel: 'equipe' },
    });
    expect([noClinic.status, ((await noClinic.json()) as { details: Array<{ path: string }> }).details[0]!.path]).toEqual([
      422,
      'clinica_ids',
    ]);
  });
});

describe.skipIf(postgresRedisProblem !== null)('a disabled account in another process [postgres + redis]', () => {
  let schema: string;
  const kvPrefix = randomPrefix();
  const stacks: Stack[] = [];
  beforeAll(async () => {
    schema = await createTestSchema();
    const shared = {
      backend: 'postgres+redis' as const,
      databaseUrl: withSearchPath(TEST_DATABASE_URL, schema),
      redisUrl: TEST_REDIS_URL,
      kvPrefix,
    };
    stacks.push(await startStack({ ...shared, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } }));
    stacks.push(await startStack({ ...shared, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } }));
  });
  afterAll(async () => {
    for (const s of stacks) await s.close();
    if (schema) await dropTestSchema(schema);
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 3 });
    await deleteNamespace(redis, kvPrefix).finally(() => redis.disconnect());
  });

  it('ends its sessions in every process as soon as one process disables it', async () => {
    const [one, two] = stacks as [Stack, Stack];
    const leo = await makeAccount(one, 'leo@clinica.test', 'equipe', [one.clinic.id]);
    const session = await signInAs(one, leo);
    expect((await withSession(two, session, '/admin/leads')).status).toBe(200);
    expect((await withBearer(one, `/admin/users/${leo.id}/disable`, { method: 'POST' })).status).toBe(200);
    expect((await withSession(two, session, '/admin/leads')).status).toBe(401);
    expect((await withSession(one, session, '/admin/leads')).status).toBe(401);
  });
});
