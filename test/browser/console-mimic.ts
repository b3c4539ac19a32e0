// A stand-in for `serve` in the console's browser tests: the built dist/console under /console
// (index.html for every route, assets from dist/console/assets) with the contract's CSP, and the
// admin API's answers from fixed data. Sessions: the right token sets `lf_session`; every other
// /admin call needs that cookie, and with it every POST needs the session's X-CSRF-Token (403).
// Records the POSTs it received, for the tests to check.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import type { LeadResponse, LeadsResponse, LeadSummary } from '../../console/server/api-types.js';
import type { TranscriptResponse } from '../../console/server/people-api-types.js';
import type { ExecutionRecord } from '../../engine/types.js';

export const distDir = join(import.meta.dirname, '..', '..', 'dist', 'console');
export const TOKEN = 'the-right-token';
const SESSION = 'session-1';
const CSRF = 'csrf-1';
const CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
/** `ms` after the execution below was created (ten minutes ago). */
const ran = (() => {
  const created = Date.now() - 10 * 60_000;
  return (ms: number) => new Date(created + ms).toISOString();
})();

export const leadMaria: LeadSummary = {
  id: 7,
  clinica_id: 1,
  nome: 'Maria Souza',
  remotejid: '5511987654321',
  state: 'conversing',
  pausado_ate: null,
  optout_at: null,
  sem_resposta_at: null,
  transferido: false,
  ultima_mensagem: 'Oi! Queria saber o valor da avaliação.',
  ultima_mensagem_at: at(-3),
  aguardando: false,
  created_at: at(-60),
};

export const leads: LeadsResponse = {
  total: 2,
  aguardando_total: 0,
  leads: [
    leadMaria,
    {
      ...leadMaria,
      id: 8,
      nome: 'João Lima',
      remotejid: '5521998765432',
      state: 'paused',
      pausado_ate: at(90),
      ultima_mensagem: 'Pode ser amanhã às 10h?',
      ultima_mensagem_at: at(-20),
      created_at: at(-300),
    },
  ],
};

export const leadPage: LeadResponse = {
  lead: {
    ...leadMaria,
    telefone: '(11) 98765-4321',
    orcamento: 'R$ 3.000 a R$ 5.000',
    respostas: { procedimento: 'Implante', 'melhor horário': 'manhã' },
    handoff_enviado: false,
    handoff_at: null,
    instancia_id: 1,
  },
  messages: [
    { id: 1, type: 'agent', content: 'Olá, Maria! Aqui é a Sofia, da Clínica Sorriso. Como posso ajudar?', created_at: at(-58) },
    { id: 2, type: 'lead', content: 'Oi! Queria saber o valor da avaliação.\n<b>sem HTML</b>', created_at: at(-10) },
    { id: 3, type: 'operator', content: 'Maria, a avaliação é gratuita. Posso agendar?', created_at: at(-5) },
  ],
  handoff: null,
  agendamento: null,
  executions: [
    {
      id: 'exec-1',
      flow: 'agent',
      status: 'success',
      started_at: at(-10),
      finished_at: at(-10),
      stop_reason: null,
      flow_version: 'abc123',
    },
  ],
};

export const execution: ExecutionRecord = {
  id: 'exec-1',
  flow: 'agent',
  status: 'success',
  trigger: { body: { phone: '5511987654321', text: 'Oi!' } },
  vars: {},
  steps: [
    {
      key: 'phone',
      id: 'phone',
      type: 'phone.normalize',
      status: 'success',
      params: { phone: '5511987654321' },
      output: { e164: '+5511987654321' },
      attempt: 1,
      started_at: ran(0),
      ms: 2,
    },
    {
      key: 'reply',
      id: 'reply',
      type: 'ai.agent',
      status: 'success',
      params: { model: 'gpt' },
      output: { text: 'A avaliação é gratuita.' },
      attempt: 2,
      started_at: ran(2),
      ms: 1840,
    },
    {
      key: 'send',
      id: 'send',
      type: 'messaging.send',
      status: 'error',
      params: { to: '5511987654321' },
      error: { name: 'HttpError', message: 'gateway 502', status: 502 },
      attempt: 3,
      started_at: ran(1842),
      ms: 420,
    },
  ],
  outbound: [],
  dry_run: false,
  flow_version: 'abc123def456',
  created_at: ran(0),
  updated_at: ran(2262),
  finished_at: ran(2262),
};

export interface ConsoleMimic {
  base: string;
  /** POSTs received: path, body and the X-CSRF-Token header. */
  posts: Array<{ path: string; body: unknown; csrf: string | undefined }>;
  close(): Promise<void>;
}

/** Lead 7's transcript (GET /admin/leads/7/messages): its memory's three messages as the lead saw them. */
const transcript: TranscriptResponse = {
  aguardando: false,
  messages: leadPage.messages.map((m) => ({
    id: m.id,
    direcao: m.type === 'lead' ? 'entrada' : 'saida',
    autor: m.type === 'lead' ? 'lead' : m.type === 'operator' ? 'equipe' : 'agente',
    autor_nome: null,
    tipo: 'texto',
    conteudo: m.content,
    status: m.type === 'agent' ? 'lida' : null,
    created_at: m.created_at,
  })),
};

export async function startConsoleMimic(): Promise<ConsoleMimic> {
  const posts: ConsoleMimic['posts'] = [];
  const app = express();
  const signedIn = (req: express.Request) => (req.header('cookie') ?? '').split(/;\s*/).includes(`lf_session=${SESSION}`);
  app.use((_req, res, next) => {
    res.set('Content-Security-Policy', CSP);
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use('/console/assets', express.static(join(distDir, 'assets'), { fallthrough: false }));
  app.use('/console', (_req, res) => res.sendFile(join(distDir, 'index.html')));
  app.post('/admin/session', express.json(), (req, res) => {
    if (req.body?.token !== TOKEN) return res.status(401).json({ error: 'invalid token' });
    res.cookie('lf_session', SESSION, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 43_200_000 });
    res.json({ csrf: CSRF });
  });
  app.get('/admin/session', (req, res) =>
    signedIn(req) ? res.json({ signed_in: true, csrf: CSRF }) : res.status(401).json({ error: 'unauthorized' }),
  );
  app.use('/admin', express.json(), (req, res, next) => {
    if (!signedIn(req)) return res.status(401).json({ error: 'unauthorized' });
    if (req.method === 'POST') {
      posts.push({ path: req.path, body: req.body, csrf: req.header('x-csrf-token') });
      if (req.header('x-csrf-token') !== CSRF) return res.status(403).json({ error: 'missing or wrong X-CSRF-Token' });
    }
    next();
  });
  app.get('/admin/clinics', (_req, res) => res.json({ clinics: [{ id: 1, nome: 'Clínica Sorriso' }] }));
  app.get('/admin/leads', (_req, res) => res.json(leads));
  app.get('/admin/leads/7', (_req, res) => res.json(leadPage));
  app.get('/admin/leads/7/audit', (_req, res) => res.json({ entries: [] }));
  app.get('/admin/leads/7/messages', (_req, res) => res.json(transcript));
  app.post('/admin/leads/7/actions', (req, res) => {
    const action = req.body?.action;
    if (action === 'erase' && req.body?.confirm !== leadMaria.remotejid)
      return res.status(400).json({ error: 'confirm must be the phone' });
    const lead =
      action === 'erase'
        ? null
        : { ...leadMaria, state: action === 'pause' ? 'paused' : 'conversing', pausado_ate: action === 'pause' ? at(120) : null };
    res.json({ execution_id: 'exec-2', status: 'success', lead });
  });
  app.get('/admin/executions', (_req, res) =>
    res.json({
      executions: [
        {
          id: 'exec-1',
          flow: 'agent',
          status: 'success',
          created_at: at(-10),
          updated_at: at(-9),
          finished_at: at(-9),
          duration_ms: 2262,
          steps: 3,
          dry_run: false,
        },
      ],
    }),
  );
  app.get('/admin/executions/exec-1', (_req, res) => res.json(execution));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
