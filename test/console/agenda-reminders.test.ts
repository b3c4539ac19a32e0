// The console's agenda plans an appointment's reminders through the flow `reminders` when one is
// loaded (console/server/agenda-action.ts): a booking starts it under `agendamento:<id>` with
// {agendamento_id}, a move starts it again (the earlier plan cancelled by the key), a cancellation
// cancels it. A stand-in `reminders` that only waits a day is loaded here, beside the agenda's two flows.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgendaActionResponse } from '../../console/server/api-types.js';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { pollFor } from '../helpers/poll.js';
import { giveAgenda, spAt, spDate } from './agenda-support.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const STAND_IN = `name: reminders
description: Stand-in for the reminders flow (console agenda test) - waits a day.
trigger:
  input:
    type: object
    required: [agendamento_id]
    properties:
      agendamento_id: { type: integer }
steps:
  - id: hold
    type: wait
    params: { ms: 86400000 }
`;

forEachBackend('console agenda and the reminders flow', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let flowsDir: string;
  let lead: number;
  const tomorrow = spDate(1);

  beforeAll(async () => {
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-agenda-reminders-'));
    writeFileSync(join(flowsDir, 'reminders.yaml'), STAND_IN);
    for (const flow of ['agenda-action.yaml', 'agenda-notice.yaml'])
      copyFileSync(join(import.meta.dirname, '../../flows', flow), join(flowsDir, flow));
    stack = await startStack({ backend, flowsDir, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    await giveAgenda(stack);
    const row = await stack.runtime.db.insert('leads', {
      clinica_id: stack.clinic.id,
      instancia_id: stack.clinic.instanceId,
      nome: 'Eva',
      remotejid: '5511955550000',
    });
    lead = Number(row.id);
  });
  afterAll(async () => {
    await stack?.close();
    if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => {
    const res = await withSession(stack, session, path, { method: 'POST', body });
    expect(res.status).toBeLessThan(300);
    return (await res.json()) as AgendaActionResponse;
  };
  const plans = async () =>
    (await stack.executions('reminders')).map((r) => ({ key: r.concurrency_key, status: r.status, body: r.trigger.body })).reverse();
  const settled = (want: string[]) =>
    pollFor(`reminders ${want.join(', ')}`, async () => (await plans()).map((p) => p.status).join() === want.join());

  it('starts the reminders on a booking, again on a move, and cancels them on a cancellation', async () => {
    const booked = await post(`/admin/clinics/${stack.clinic.id}/agenda`, {
      lead_id: lead,
      inicio: new Date(spAt(tomorrow, '10:00')).toISOString(),
    });
    const id = booked.agendamento.id;
    const plan = { key: `agendamento:${id}`, body: { agendamento_id: id } };
    await settled(['waiting']);
    expect(await plans()).toMatchObject([plan]);
    await post(`/admin/agendamentos/${id}/mover`, { inicio: new Date(spAt(tomorrow, '16:00')).toISOString() });
    await settled(['cancelled', 'waiting']);
    expect(await plans()).toMatchObject([plan, plan]);
    await post(`/admin/agendamentos/${id}/cancelar`, {});
    await settled(['cancelled', 'cancelled']);
  });
});
