// One change to an appointment from the console: an execution of flows/agenda-action.yaml (input
// {acao, clinica_id, lead_id, agendamento_id?, inicio?, status?, motivo?}; the booking node, then
// the reminders planned or dropped and the Hunter's notice), awaited to its end. A failed execution
// (the calendar out of reach, a clinic without agenda) changed nothing.
import type { Engine } from '../../engine/engine.js';

/** The flow each agenda change runs as. */
export const AGENDA_ACTION_FLOW = 'agenda-action';
/** The input of flows/agenda-action.yaml. */
export interface AgendaActionInput {
  acao: 'marcar' | 'remarcar' | 'cancelar' | 'presenca';
  clinica_id: number;
  lead_id: number;
  agendamento_id?: number;
  /** ms since the epoch. */
  inicio?: number;
  status?: 'compareceu' | 'faltou';
  motivo?: string;
}

/** The execution's end: its id and status, and its output (the booking node's answer) when it succeeded. */
export interface AgendaActionOutcome {
  execution_id: string;
  ok: boolean;
  status: string | null;
  agendamento_id: number | null;
  alternativas: unknown[];
}

/** Runs the change and awaits it; null when the flow is not loaded. */
export async function runAgendaAction(engine: Engine, input: AgendaActionInput): Promise<AgendaActionOutcome | null> {
  if (!engine.getFlow(AGENDA_ACTION_FLOW)) return null;
  const handle = await engine.start(AGENDA_ACTION_FLOW, { body: { ...input } });
  const record = await engine.waitForEnd(handle.id);
  const output = (record.status === 'success' && record.output && typeof record.output === 'object' ? record.output : {}) as Record<
    string,
    unknown
  >;
  const id = typeof output.agendamento_id === 'number' ? output.agendamento_id : null;
  const outcome: AgendaActionOutcome = {
    execution_id: record.id,
    ok: record.status === 'success',
    status: typeof output.status === 'string' ? output.status : null,
    agendamento_id: id,
    alternativas: Array.isArray(output.alternativas) ? output.alternativas : [],
  };
  return outcome;
}
