// Agent drive: what the engine and the agent flow's nodes cost for one WhatsApp message, in process,
// with nothing outside it — the part of `bench/ingest.ts`'s server CPU no database or network hides.
//
// One Engine (engine/engine.ts) with every shipped node type, the shipped flows/agent.yaml (loaded as
// `leadflow serve` loads it, with LEADFLOW_DEBOUNCE_MS = LEADFLOW_DEBOUNCE_MAX_MS = 600000 as the
// ingest benchmark sets them), the in-memory execution store, the in-process scheduler and a silent
// logger. The services the flow's steps read before its `debounce` wait are instant fakes in memory:
// the database's table operations (bench/lib/memory-tables.ts: one clinic, its protocol, LEADS leads),
// the in-process key-value store (adapters/kv, memory only), the real gateway provider registry (its
// event parser) and an instance directory answering from a constant. No step makes a network call,
// a file read or a timer wait.
//
// Each message is engine.start('agent', {body, auth}) with the real gateway event of a lead's text
// (test/helpers/uazapi-events.ts; the leads in rotation, a fresh message id each), awaited until the
// drive parks: it must end `waiting` at the `burst` step (the debounce) having walked every step
// before it, as `POST /leadagent` does — else the run fails. One message at a time.
//
// Figures: CPU per message = this process's user+system CPU over the measured messages / messages
// (process.cpuUsage; the engine, the nodes, the fakes and the garbage collector, with one core busy);
// wall time per message (mean, p50, p99); steps per message (step records at the wait) and CPU per
// step = CPU per message / steps. Target: CPU per message <= 0.5 ms. Then a separate profiled pass
// (node:inspector's sampling profiler, PROFILE_MESSAGES messages, not counted in the figures) prints
// the top entries by area of the code and by function (bench/lib/profile-summary.ts; self time).
//
// Options (environment variables):
//   BENCH_AGENT_MESSAGES        measured messages (default 5000; 1000 with BENCH_QUICK=1)
//   BENCH_AGENT_WARMUP          warm-up messages, not measured (default 1000; 300 with BENCH_QUICK=1)
//   BENCH_AGENT_LEADS           leads the messages rotate over (default 20)
//   BENCH_AGENT_PROFILE         messages of the profiled pass (default 2000; 0: no profile)
//   BENCH_AGENT_PROFILE_TOP     entries printed per list (default 15)
//   BENCH_AGENT_PROFILE_FILE    when set, the profiled pass's whole profile is written there (.cpuprofile,
//                               for Chrome DevTools or `npx tsx bench/lib/profile-summary.ts FILE`)
//   BENCH_AGENT_FRESH_EVERY     a new engine (memory store, key-value store, scheduler) every N messages,
//                               so the parked records do not pile up on the heap as they do not in
//                               `serve`, whose records are in the database (default 0: one engine for
//                               the run, which keeps every record)
//   BENCH_AGENT_SAVE            0: the figures are printed, not saved in bench/results.json (the counted
//                               runs of bench/agent-drive-instructions.ts); default 1
//   BENCH_QUICK=1               the quick sizes above
//
// Run: npx tsx bench/agent-drive.ts   (no database, Redis or build needed)
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { gatewayProviders } from '../adapters/gateway/providers.js';
import { MemoryKeyValue } from '../adapters/kv/memory-key-value.js';
import { Engine } from '../engine/engine.js';
import { loadFlowDirectory } from '../engine/load/loader.js';
import { formatProblem } from '../engine/load/yaml-source.js';
import { silentLogger } from '../engine/logger.js';
import { InProcessScheduler } from '../engine/scheduler/in-process-scheduler.js';
import { MemoryExecutionStore } from '../engine/store/memory-store.js';
import { withErasure } from '../engine/store/erasing-store.js';
import type { JsonObject } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';
import { leadTextEvent } from '../test/helpers/uazapi-events.js';
import { MemoryTables } from './lib/memory-tables.js';
import { type CpuProfile, formatProfileSummary, summariseProfile, type ProfileSummary } from './lib/profile-summary.js';
import { saveResult } from './lib/results.js';
import { mean, percentile, round, table, verdict } from './lib/stats.js';
import { positiveInt, runMain } from './lib/main.js';

const QUICK = process.env.BENCH_QUICK === '1';
const MESSAGES = positiveInt('BENCH_AGENT_MESSAGES', QUICK ? 1000 : 5000);
const WARMUP = positiveInt('BENCH_AGENT_WARMUP', QUICK ? 300 : 1000, true);
const LEADS = positiveInt('BENCH_AGENT_LEADS', 20);
const PROFILE_MESSAGES = positiveInt('BENCH_AGENT_PROFILE', 2000, true);
const PROFILE_TOP = positiveInt('BENCH_AGENT_PROFILE_TOP', 15);
const SAVE = process.env.BENCH_AGENT_SAVE !== '0';
const FRESH_EVERY = positiveInt('BENCH_AGENT_FRESH_EVERY', 0, true);
/** Target: CPU per message, ms. */
const TARGET_MS_PER_MESSAGE = 0.5;
/** The step the drive must park at. */
const WAIT_STEP = 'burst';
const HOLD_MS = '600000';
const TOKEN = 'bench-agent-token';
const CLINIC_PHONE = '5511900001111';

/** The seeded tables: clinic 1 with one protocol and one instance, LEADS leads; returns the leads' phones. */
function seedTables(tables: MemoryTables): string[] {
  const now = new Date().toISOString();
  tables.rows('clinicas_com_atendentes').push({
    id: 1,
    nome: 'Clínica Bench',
    endereco: null,
    posicionamento: null,
    hunter_nome: 'Ana',
    hunter_telefone: '5511987650001',
    admin_telefones: null,
    horario_atendimento: null,
    agenda: null,
  });
  tables.rows('protocolos').push({ id: 1, clinica_id: 1, nome: 'Lentes', descricao: 'Lentes de porcelana', preco: null });
  const phones: string[] = [];
  for (let i = 0; i < LEADS; i++) {
    const phone = `55119${String(70000000 + i).padStart(8, '0')}`;
    phones.push(phone);
    tables.rows('leads').push({
      id: i + 1,
      remotejid: phone,
      clinica_id: 1,
      instancia_id: 1,
      nome: 'Lead Bench',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      respostas: null,
      transferido: false,
      handoff_enviado: false,
      handoff_at: null,
      ultima_mensagem: null,
      ultima_mensagem_at: null,
      created_at: now,
      updated_at: now,
      pausado_ate: null,
      optout_at: null,
      sem_resposta_at: null,
    });
  }
  return phones;
}

/** The node registry and the shipped flows, loaded once per run. */
interface ShippedFlows {
  registry: ReturnType<typeof defaultRegistry>;
  flows: ReturnType<typeof loadFlowDirectory>['flows'];
}

/** The registry and the shipped flows, loaded once. */
function loadShippedFlows(): ShippedFlows {
  const registry = defaultRegistry();
  const loaded = loadFlowDirectory(join(import.meta.dirname, '..', 'flows'), registry);
  if (loaded.problems.length > 0) throw new Error(`the flows do not load:\n${loaded.problems.map(formatProblem).join('\n')}`);
  return { registry, flows: loaded.flows };
}

/** The engine on a new memory store, key-value store and scheduler, the shipped flows and the fakes (see the file comment). */
async function startEngine(tables: MemoryTables, shipped: ShippedFlows): Promise<Engine> {
  const { registry, flows } = shipped;
  const store = new MemoryExecutionStore();
  const instance = { id: 1, clinica_id: 1, nome: 'Recepção', server_url: 'http://127.0.0.1:9', token: TOKEN, provider: 'uazapi' };
  const engine = new Engine({
    registry,
    flows,
    store,
    scheduler: new InProcessScheduler(),
    logger: silentLogger,
    env: { LEADFLOW_DEBOUNCE_MS: HOLD_MS, LEADFLOW_DEBOUNCE_MAX_MS: HOLD_MS },
    services: {
      db: tables,
      kv: new MemoryKeyValue(),
      gatewayProviders,
      instances: { get: async (id: number) => (id === 1 ? instance : undefined) },
      executions: withErasure(store),
    },
  });
  await engine.startScheduler();
  return engine;
}

/**
 * The engine each message drives on: one for the whole run, or with FRESH_EVERY a new one (store,
 * key-value store, scheduler; the same tables and flows) every FRESH_EVERY messages, the previous
 * one shut down, so the heap does not grow with the parked records.
 */
class EngineSeries {
  private engine: Engine | undefined;
  private driven = 0;

  constructor(
    private readonly tables: MemoryTables,
    private readonly shipped: ShippedFlows,
  ) {}

  /** The engine for the next message. */
  async next(): Promise<Engine> {
    if (this.engine && FRESH_EVERY > 0 && this.driven % FRESH_EVERY === 0) {
      await this.engine.shutdown();
      this.engine = undefined;
    }
    this.engine ??= await startEngine(this.tables, this.shipped);
    this.driven++;
    return this.engine;
  }

  async shutdown(): Promise<void> {
    await this.engine?.shutdown();
  }
}

/** Feeds the leads' messages in rotation: each call the next lead's trigger input, with a fresh message id. */
function messageMaker(phones: string[]): () => { body: JsonObject; auth: JsonObject } {
  let n = 0;
  return () => {
    const phone = phones[n++ % phones.length]!;
    const body = leadTextEvent({ phone, text: `Oi, quero saber do valor (${n})`, token: TOKEN, owner: CLINIC_PHONE }) as JsonObject;
    return { body, auth: { instance_id: 1, clinica_id: 1, provider: 'uazapi' } };
  };
}

/** One message's drive, start → parked at the debounce; returns its wall time (ms) and its step records. Throws unless it parked there. */
async function drive(engine: Engine, input: { body: JsonObject; auth: JsonObject }): Promise<{ ms: number; steps: number }> {
  const t0 = performance.now();
  const handle = await engine.start('agent', input);
  const record = await handle.settled;
  const ms = performance.now() - t0;
  const last = record.steps[record.steps.length - 1];
  if (record.status !== 'waiting' || last?.id !== WAIT_STEP) {
    throw new Error(
      `execution ${record.id} ended ${record.status} at step ${last?.id ?? 'none'} (expected waiting at "${WAIT_STEP}"): ${record.error?.message ?? record.stop_reason ?? ''}`,
    );
  }
  return { ms, steps: record.steps.length };
}

interface Measured {
  wallMs: number[];
  steps: number;
  cpuMsPerMessage: number;
  profile: ProfileSummary | undefined;
}

/** The warm-up, the measured messages (CPU and wall time), then the profiled pass. */
async function measure(engines: EngineSeries, next: () => { body: JsonObject; auth: JsonObject }): Promise<Measured> {
  for (let i = 0; i < WARMUP; i++) await drive(await engines.next(), next());
  const wallMs: number[] = [];
  let steps = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < MESSAGES; i++) {
    const one = await drive(await engines.next(), next());
    wallMs.push(one.ms);
    steps = one.steps;
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuMsPerMessage = (cpu.user + cpu.system) / 1000 / MESSAGES;
  return { wallMs, steps, cpuMsPerMessage, profile: PROFILE_MESSAGES > 0 ? await profiled(engines, next) : undefined };
}

/** PROFILE_MESSAGES messages under the sampling profiler; their profile's summary. */
async function profiled(engines: EngineSeries, next: () => { body: JsonObject; auth: JsonObject }): Promise<ProfileSummary> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    for (let i = 0; i < PROFILE_MESSAGES; i++) await drive(await engines.next(), next());
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    if (process.env.BENCH_AGENT_PROFILE_FILE) writeFileSync(process.env.BENCH_AGENT_PROFILE_FILE, JSON.stringify(profile));
    return summariseProfile(profile, PROFILE_TOP);
  } finally {
    session.disconnect();
  }
}

function report(m: Measured): void {
  const perStepUs = (m.cpuMsPerMessage * 1000) / m.steps;
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const row = (measure: string, value: string) => ({ measure, value, against: '', verdict: '' });
  console.log(`agent drive: ${MESSAGES} measured + ${WARMUP} warm-up messages over ${LEADS} leads, each parked at "${WAIT_STEP}"`);
  console.log(
    table([
      {
        measure: 'CPU per message',
        value: ms(m.cpuMsPerMessage),
        against: `<= ${TARGET_MS_PER_MESSAGE} ms`,
        verdict: verdict(m.cpuMsPerMessage <= TARGET_MS_PER_MESSAGE),
      },
      row('steps per message (step records at the wait)', String(m.steps)),
      row('CPU per step', `${perStepUs.toFixed(1)} µs`),
      row('wall time per message (mean)', ms(mean(m.wallMs))),
      row('wall time per message (p50 / p99)', `${ms(percentile(m.wallMs, 50))} / ${ms(percentile(m.wallMs, 99))}`),
    ]),
  );
  if (m.profile) console.log(`\n${formatProfileSummary(m.profile)} (${PROFILE_MESSAGES} messages)`);
}

function save(m: Measured): void {
  const entries = (list: ProfileSummary['areas']) => list.map((e) => ({ name: e.name, share: round(e.share, 3) }));
  saveResult('agent-drive', {
    settings: { messages: MESSAGES, warmup: WARMUP, leads: LEADS, profile_messages: PROFILE_MESSAGES, store: 'memory', quick: QUICK },
    figures: {
      cpu_ms_per_message: round(m.cpuMsPerMessage, 3),
      steps_per_message: m.steps,
      cpu_us_per_step: round((m.cpuMsPerMessage * 1000) / m.steps, 1),
      wall_mean_ms: round(mean(m.wallMs), 3),
      wall_p50_ms: round(percentile(m.wallMs, 50), 3),
      wall_p99_ms: round(percentile(m.wallMs, 99), 3),
      ...(m.profile ? { profile_areas: entries(m.profile.areas), profile_functions: entries(m.profile.functions) } : {}),
    },
    targets: [
      {
        target: `CPU per message <= ${TARGET_MS_PER_MESSAGE} ms (agent flow to its debounce, in process)`,
        met: m.cpuMsPerMessage <= TARGET_MS_PER_MESSAGE,
      },
    ],
  });
}

async function main(): Promise<void> {
  const tables = new MemoryTables();
  const phones = seedTables(tables);
  const engines = new EngineSeries(tables, loadShippedFlows());
  try {
    const measured = await measure(engines, messageMaker(phones));
    report(measured);
    if (SAVE) save(measured);
  } finally {
    await engines.shutdown();
  }
}

runMain(main);
