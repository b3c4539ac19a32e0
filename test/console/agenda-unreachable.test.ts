// The clinic's calendar out of reach (a Google agenda whose API and token endpoints refuse
// connections): the agenda's free slots answer 503, booking by hand answers 503 naming the failed
// agenda-action execution, and nothing is written nor anyone told.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HUNTER_PHONE, type Stack, startStack } from '../e2e/stack.js';
import { EVERY_DAY, spAt, spDate } from './agenda-support.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let stack: Stack;
let session: SignedIn;
let lead: number;

beforeAll(async () => {
  stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  session = await signIn(stack);
  const port = await closedPort();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const agenda = {
    provider: 'google',
    google: {
      calendar_id: 'agenda@example.com',
      service_account: {
        client_email: 'leadflow@example.iam.gserviceaccount.com',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      },
      base_url: `http://127.0.0.1:${port}/calendar/v3`,
      token_url: `http://127.0.0.1:${port}/token`,
    },
  };
  await stack.runtime.db.update(
    'clinicas_com_atendentes',
    { id: stack.clinic.id },
    { horario_atendimento: EVERY_DAY, agenda: JSON.stringify(agenda) },
  );
  const row = await stack.runtime.db.insert('leads', {
    clinica_id: stack.clinic.id,
    instancia_id: stack.clinic.instanceId,
    nome: 'Gil',
    remotejid: '5511944440000',
  });
  lead = Number(row.id);
});
afterAll(() => stack?.close());

it('answers 503 and changes nothing when the calendar cannot be reached', async () => {
  const tomorrow = spDate(1);
  const slots = await withSession(stack, session, `/admin/clinics/${stack.clinic.id}/agenda/horarios?dia=${tomorrow}&lead_id=${lead}`);
  expect(slots.status).toBe(503);
  expect(((await slots.json()) as { error: string }).error).toBe('não consegui acessar a agenda da clínica agora; tente de novo');
  const book = await withSession(stack, session, `/admin/clinics/${stack.clinic.id}/agenda`, {
    method: 'POST',
    body: { lead_id: lead, inicio: new Date(spAt(tomorrow, '10:00')).toISOString() },
  });
  expect(book.status).toBe(503);
  const body = (await book.json()) as { execution_id: string };
  expect(await stack.runtime.store.get(body.execution_id)).toMatchObject({ flow: 'agenda-action', status: 'failed' });
  expect(await stack.runtime.db.find('agendamentos', {})).toEqual([]);
  expect(stack.gateway.sent.filter((m) => m.number === HUNTER_PHONE)).toEqual([]);
  // The listing needs no provider: it still answers, without the key.
  const day = await withSession(stack, session, `/admin/clinics/${stack.clinic.id}/agenda?dia=${tomorrow}`);
  expect(day.status).toBe(200);
  expect(await day.text()).not.toContain('PRIVATE KEY');
}, 60_000);
