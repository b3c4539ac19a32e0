// Intake latency: a form received → the lead's first WhatsApp message at the gateway.
//
// Stack (bench/lib/services.ts): a fresh PostgreSQL schema, Redis db 9 (queue mode), the fake
// gateway and the fake OpenAI (instant replies), a seeded clinic, and ONE `leadflow serve` process
// (HTTP and work; flows/ as shipped) with LEADFLOW_INTAKE_DELAY_MS=0, typing delays 0, LOG_LEVEL info.
//
// Each form is a generic body (flows/intake.yaml, flows/samples/intake.json): nome, telefone,
// orcamento "Até R$ 3.000" (normal budget: the first message is written by the primary AI model),
// clinica_id = the seeded clinic, respostas; POST /form/intake with X-Webhook-Secret (auth
// `form-signature`). Every form has a NEW phone — distinct valid Brazilian mobiles, "(21) 98xxx-xxxx" —
// so every form creates its lead. The flow sends to the lead's remotejid: the phone normalised by
// adapters/phones normalizeFormPhone ("5521 98xxx xxxx"); the bench computes it the same way.
//
// Latency of a form = `at` (Date.now() on arrival, fake gateway) of the first /send/text whose body
// number is that lead's phone − Date.now() just before the POST was sent (same clock, 1 ms
// resolution). Forms go out in CONCURRENCY lanes (default 4): each lane posts a form, waits for its
// first message at the gateway, then posts the next — at most 4 forms between POST and first
// message at any time: a light, steady load (latency, not throughput). The WARMUP forms (default 10)
// go first, one at a time, and are not counted.
//
// Where the time goes (from the stored execution records, server clock = same machine, ms): per form
//   accept      = execution created_at − POST sent (HTTP, auth, input check, record insert)
//   to 1st step = first step started_at − created_at (the receiving serve starts it at once; with
//                 LEADFLOW_WEBHOOK_MODE=queue this is the BullMQ hop: job → worker → claim)
//   walk        = `send_to_lead` step started_at − first step started_at (every step before the send)
//     of which node time = the sum of the leaf steps' own `ms` in that span (db, redis, AI, …);
//     the rest is the engine: parameter expressions and the saves (journal entries, engine/store/journal.ts)
//   send        = gateway arrival − `send_to_lead` started_at
// Each is reported at p50 and p99 (the figures of one form do not add up across percentiles).
// Also: the stored record's size at the end (KB), and PostgreSQL's table counters for the run's
// schema (pg_stat_user_tables, read once serve has exited, divided by forms + warm-up): row writes
// per execution (and how many of them are updates of `executions`), and scans (≈ read statements;
// an upsert counts one too). They cover whole executions, the Hunter alert and memory row included.
// Target: p99 latency under 100 ms.
//
// Options (environment variables):
//   BENCH_FORMS              measured forms (default 200; 50 with BENCH_QUICK=1)
//   BENCH_INTAKE_WARMUP      warm-up forms, not counted (default 10)
//   BENCH_INTAKE_CONCURRENCY forms in flight at once (default 4)
//   BENCH_INTAKE_TIMEOUT_MS  longest wait for one form's first message before the run fails (default 30000)
//   BENCH_PROFILE_DIR        when set, the serve process is CPU-profiled (inspector API, preloaded with
//                            NODE_OPTIONS=--import) into DIR/serve-<pid>.cpuprofile, written when it
//                            exits on SIGTERM at the end of the run (the figures then include the
//                            profiler's overhead)
//   BENCH_INTAKE_REDIS_DB    Redis database number for the serve process instead of the shared db 9
//                            of bench/lib/services.ts; flushed before and after the run. Use it when
//                            other benchmarks run at the same time on the same Redis: they share db 9
//                            and the BullMQ queue name `leadflow:executions`, so their processes take
//                            this run's jobs (and their flushdb drops them). Default: unset (db 9).
//   BENCH_QUICK=1            the quick size above
//   BENCH_DATABASE_URL / BENCH_REDIS_URL: see bench/lib/services.ts
//
// Run: npm run build && npx tsx bench/intake-latency.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { normalizeFormPhone } from '../adapters/phones/normalize-form-phone.js';
import { saveResult } from './lib/results.js';
import { redisUrl, startServices, sleep, type BenchServices, type LeadflowProcess } from './lib/services.js';
import { mean, percentile, round, table, verdict } from './lib/stats.js';
import { runMain } from './lib/main.js';

const QUICK = process.env.BENCH_QUICK === '1';
const FORMS = intOption('BENCH_FORMS', QUICK ? 50 : 200, 1);
const WARMUP = intOption('BENCH_INTAKE_WARMUP', 10, 0);
const CONCURRENCY = intOption('BENCH_INTAKE_CONCURRENCY', 4, 1);
const TIMEOUT_MS = intOption('BENCH_INTAKE_TIMEOUT_MS', 30_000, 1);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR || '';
/** Temporary directory of the profiler preload, if any. */
let preloadDir: string | undefined;
const OWN_REDIS_DB = process.env.BENCH_INTAKE_REDIS_DB ? intOption('BENCH_INTAKE_REDIS_DB', 9, 0) : undefined;
const SECRET = 'bench-secret';
/** Target: p99 of form → first message, ms. */
const TARGET_P99_MS = 100;

function intOption(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

interface Form {
  index: number;
  telefone: string;
  /** The number the flow sends to (normalised digits). */
  number: string;
  body: Record<string, unknown>;
}

/** The i-th form: a new, valid Brazilian mobile "(21) 98xxx-xxxx" (i < 10^7). */
function form(i: number, clinicId: number): Form {
  const seq = String(i).padStart(7, '0');
  const telefone = `(21) 98${seq.slice(0, 3)}-${seq.slice(3)}`;
  const number = normalizeFormPhone(telefone, 'BR');
  if (number !== `552198${seq}`) throw new Error(`unexpected normalisation of ${telefone}: ${number}`);
  return {
    index: i,
    telefone,
    number,
    body: {
      nome: `Lead Bench ${i}`,
      telefone,
      orcamento: 'Até R$ 3.000',
      clinica_id: String(clinicId),
      respostas: { interesse: 'Lentes de contato dental' },
    },
  };
}

/** First /send/text arrival time per recipient number, read incrementally from gateway.requests. */
class FirstSends {
  private scanned = 0;
  private readonly first = new Map<string, number>();
  constructor(private readonly services: BenchServices) {}

  at(number: string): number | undefined {
    const requests = this.services.gateway.requests;
    for (; this.scanned < requests.length; this.scanned++) {
      const r = requests[this.scanned]!;
      const to = (r.body as { number?: unknown } | undefined)?.number;
      if (r.path === '/send/text' && typeof to === 'string' && !this.first.has(to)) this.first.set(to, r.at);
    }
    return this.first.get(number);
  }
}

interface Sample {
  form: Form;
  postedAt: number;
  acceptedMs: number;
  executionId: string;
  arrivedAt: number;
}

/** Posts one form and resolves once its first message reached the gateway. */
async function submit(url: string, f: Form, sends: FirstSends): Promise<Sample> {
  const postedAt = Date.now();
  const res = await fetch(`${url}/form/intake`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-secret': SECRET },
    body: JSON.stringify(f.body),
  });
  const acceptedMs = Date.now() - postedAt;
  const text = await res.text();
  if (res.status !== 202) throw new Error(`form ${f.index}: POST /form/intake answered ${res.status}: ${text}`);
  const executionId = String((JSON.parse(text) as { execution_id?: unknown }).execution_id);
  for (;;) {
    const arrivedAt = sends.at(f.number);
    if (arrivedAt !== undefined) return { form: f, postedAt, acceptedMs, executionId, arrivedAt };
    if (Date.now() - postedAt > TIMEOUT_MS)
      throw new Error(`form ${f.index} (${f.number}, execution ${executionId}): no message at the gateway within ${TIMEOUT_MS} ms`);
    await sleep(2);
  }
}

/** Runs `forms` in `lanes` lanes, each posting its next form when its previous one got its first message. */
async function runLanes(url: string, forms: Form[], lanes: number, sends: FirstSends): Promise<Sample[]> {
  const samples: Sample[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, forms.length) }, async () => {
      while (next < forms.length) samples.push(await submit(url, forms[next++]!, sends));
    }),
  );
  return samples;
}

interface StepRow {
  key: string;
  type: string;
  started_at: string;
  ms: number;
  status: string;
}

const CONTROL_TYPES = new Set(['if', 'switch', 'parallel', 'foreach', 'call-flow']);

interface Breakdown {
  accept: number;
  queueHop: number;
  walk: number;
  nodeTime: number;
  engineTime: number;
  send: number;
  stepsBeforeSend: number;
  /** Size of the stored record's JSON parts (trigger, vars, steps, output) at the end, KB. */
  recordKb: number;
}

/** Splits each sample's latency using its stored execution record (see the file comment). */
async function breakdowns(services: BenchServices, samples: Sample[]): Promise<Breakdown[]> {
  const rows = (await services
    .knex('executions')
    .whereIn(
      'id',
      samples.map((s) => s.executionId),
    )
    .select(
      'id',
      'created_at',
      'steps',
      services.knex.raw(
        'coalesce(octet_length(trigger), 0) + coalesce(octet_length(vars), 0) + coalesce(octet_length(steps), 0) + coalesce(octet_length(output), 0) as bytes',
      ),
    )) as Array<{ id: string; created_at: string | Date; steps: string; bytes: number | string }>;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Breakdown[] = [];
  for (const s of samples) {
    const row = byId.get(s.executionId);
    if (!row) continue;
    const steps = (JSON.parse(row.steps) as StepRow[]).slice().sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    const send = steps.find((st) => st.key.endsWith('send_to_lead'));
    if (!send || steps.length === 0) continue;
    const created = new Date(row.created_at).getTime();
    const first = Date.parse(steps[0]!.started_at);
    const sendStart = Date.parse(send.started_at);
    const before = steps.filter((st) => Date.parse(st.started_at) < sendStart);
    const nodeTime = before.filter((st) => !CONTROL_TYPES.has(st.type)).reduce((sum, st) => sum + st.ms, 0);
    out.push({
      accept: created - s.postedAt,
      queueHop: first - created,
      walk: sendStart - first,
      nodeTime,
      engineTime: sendStart - first - nodeTime,
      send: s.arrivedAt - sendStart,
      stepsBeforeSend: before.length,
      recordKb: Number(row.bytes) / 1024,
    });
  }
  return out;
}

interface TableStats {
  /** Rows inserted + updated + deleted in the run's schema, every table. */
  rowWrites: number;
  /** Rows updated in `executions` (per-step saves as upserts, claims, lease renewals, the end). */
  executionUpdates: number;
  /** Sequential + index scans started, every table (≈ read statements). */
  scans: number;
  /** The same per table: [row writes, scans]. */
  byTable: Record<string, [number, number]>;
}

/**
 * Cumulative table statistics of the run's schema (pg_stat_user_tables). Read after the serve
 * process exited: PostgreSQL 15 flushes a backend's counters when it ends (otherwise up to 10 s late).
 * They include the seed's few rows and the bench's own reads of the executions table.
 */
async function tableStats(services: BenchServices): Promise<TableStats> {
  const rows = (await services.knex
    .select('relname', 'n_tup_ins', 'n_tup_upd', 'n_tup_del', 'seq_scan', 'idx_scan')
    .from('pg_stat_user_tables')
    .whereRaw('schemaname = current_schema()')) as Array<Record<string, string | number | null>>;
  const n = (v: string | number | null | undefined) => Number(v ?? 0);
  return {
    rowWrites: rows.reduce((sum, r) => sum + n(r.n_tup_ins) + n(r.n_tup_upd) + n(r.n_tup_del), 0),
    executionUpdates: n(rows.find((r) => r.relname === 'executions')?.n_tup_upd),
    scans: rows.reduce((sum, r) => sum + n(r.seq_scan) + n(r.idx_scan), 0),
    byTable: Object.fromEntries(
      rows.map((r) => [
        String(r.relname),
        [n(r.n_tup_ins) + n(r.n_tup_upd) + n(r.n_tup_del), n(r.seq_scan) + n(r.idx_scan)] as [number, number],
      ]),
    ),
  };
}

/**
 * A module for `node --import` that CPU-profiles the whole process through the inspector API and
 * writes `<dir>/serve-<pid>.cpuprofile` when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
 * Written to a temporary directory (removed at the end of the run); returns its file URL.
 */
function profilerPreload(dir: string): string {
  mkdirSync(dir, { recursive: true });
  preloadDir = mkdtempSync(join(tmpdir(), 'leadflow-bench-prof-'));
  const file = join(preloadDir, 'cpu-profile.mjs');
  writeFileSync(
    file,
    [
      "import { Session } from 'node:inspector';",
      "import { writeFileSync } from 'node:fs';",
      'const session = new Session();',
      'session.connect();',
      "session.post('Profiler.enable');",
      "session.post('Profiler.start');",
      "process.on('exit', () => {",
      // Same-thread inspector sessions answer synchronously, so this runs before the process ends.
      "  session.post('Profiler.stop', (err, result) => {",
      `    if (!err) writeFileSync(${JSON.stringify(dir)} + '/serve-' + process.pid + '.cpuprofile', JSON.stringify(result.profile));`,
      '  });',
      '});',
      '',
    ].join('\n'),
  );
  return pathToFileURL(file).href;
}

/** Sends SIGTERM and waits (at most 15 s) for the process to exit, so a --cpu-prof profile is written. */
async function stopGracefully(proc: LeadflowProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
}

/** The serve process's extra environment: the profiler preload (BENCH_PROFILE_DIR) and its own Redis database (BENCH_INTAKE_REDIS_DB, flushed now). */
async function serveEnv(): Promise<{ extraEnv: Record<string, string>; ownRedis: Redis | undefined }> {
  const extraEnv: Record<string, string> = PROFILE_DIR ? { NODE_OPTIONS: `--import ${profilerPreload(PROFILE_DIR)}` } : {};
  if (OWN_REDIS_DB === undefined) return { extraEnv, ownRedis: undefined };
  const u = new URL(redisUrl());
  u.pathname = `/${OWN_REDIS_DB}`;
  extraEnv.REDIS_URL = u.toString();
  const ownRedis = new Redis(extraEnv.REDIS_URL, { maxRetriesPerRequest: 3 });
  await ownRedis.flushdb();
  return { extraEnv, ownRedis };
}

/** What one run measured. */
interface Run {
  samples: Sample[];
  /** Form → first message, per measured form, ms. */
  latencies: number[];
  /** POST → 202 answer, per measured form, ms. */
  accepted: number[];
  parts: Breakdown[];
  wallS: number;
  rssMb: number;
  /** AI requests the fake OpenAI answered. */
  chats: number;
  stats: TableStats;
  /** Executions the table counters are divided by: the measured forms and the warm-up. */
  executions: number;
}

/** The warm-up forms one at a time, the measured ones in CONCURRENCY lanes; then stops serve (SIGTERM) and reads its table counters. */
async function measure(services: BenchServices, proc: LeadflowProcess, url: string): Promise<Run> {
  const sends = new FirstSends(services);
  const warm = Array.from({ length: WARMUP }, (_, i) => form(i, services.clinicId));
  const measured = Array.from({ length: FORMS }, (_, i) => form(WARMUP + i, services.clinicId));
  await runLanes(url, warm, 1, sends);
  const started = Date.now();
  const samples = await runLanes(url, measured, CONCURRENCY, sends);
  const wallS = (Date.now() - started) / 1000;
  const latencies = samples.map((s) => s.arrivedAt - s.postedAt);
  const accepted = samples.map((s) => s.acceptedMs);
  const parts = await breakdowns(services, samples);
  const rssMb = await proc.rssMb();
  const chats = services.openai.chatRequests().length;
  // Let the executions finish (the Hunter alert and memory row come after the first message), then
  // stop serve: its database counters are flushed, and a profile is written.
  await sleep(1000);
  await stopGracefully(proc);
  await sleep(200);
  const stats = await tableStats(services);
  return { samples, latencies, accepted, parts, wallS, rssMb, chats, stats, executions: FORMS + WARMUP };
}

const ms = (v: number) => `${Math.round(v)} ms`;
const pair = (xs: number[]) => `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 99))}`;
const row = (measure: string, value: string) => ({ measure, value, against: '', verdict: '' });

/** Prints the run's figures as a table against the target. */
function report(run: Run): void {
  const { latencies, stats, executions } = run;
  const pick = (f: (b: Breakdown) => number) => run.parts.map(f);
  const p99 = percentile(latencies, 99);
  console.log(
    `intake latency: ${FORMS} forms (+${WARMUP} warm-up), ${CONCURRENCY} in flight, one serve (queue mode, PostgreSQL + Redis), ${run.wallS.toFixed(1)} s, ${run.chats} AI requests, serve RSS ${run.rssMb.toFixed(0)} MB`,
  );
  console.log(
    table([
      row('form → first message, p50', ms(percentile(latencies, 50))),
      { measure: 'form → first message, p99', value: ms(p99), against: `< ${TARGET_P99_MS} ms`, verdict: verdict(p99 < TARGET_P99_MS) },
      row('form → first message, max', ms(Math.max(...latencies))),
      row('form → first message, mean', ms(mean(latencies))),
      row('POST → 202 answer, p50 / p99', pair(run.accepted)),
      row('  accept (POST → record), p50 / p99', pair(pick((b) => b.accept))),
      row('  record → 1st step, p50 / p99', pair(pick((b) => b.queueHop))),
      row(
        `  walk (${percentile(
          pick((b) => b.stepsBeforeSend),
          50,
        )} steps before the send), p50 / p99`,
        pair(pick((b) => b.walk)),
      ),
      row('    of which in nodes, p50 / p99', pair(pick((b) => b.nodeTime))),
      row('    of which engine (params, saves), p50 / p99', pair(pick((b) => b.engineTime))),
      row('  send (step start → gateway), p50 / p99', pair(pick((b) => b.send))),
      row(
        'stored execution record, p50',
        `${percentile(
          pick((b) => b.recordKb),
          50,
        ).toFixed(1)} KB`,
      ),
      row(
        'DB row writes per execution (executions updates)',
        `${(stats.rowWrites / executions).toFixed(1)} (${(stats.executionUpdates / executions).toFixed(1)})`,
      ),
      row('DB scans (≈ reads) per execution', (stats.scans / executions).toFixed(1)),
    ]),
  );
}

/** The database figures per execution: row writes, execution updates, scans, and per table. */
function dbFigures({ stats, executions }: Run): Record<string, unknown> {
  return {
    db_row_writes_per_execution: round(stats.rowWrites / executions, 1),
    db_execution_updates_per_execution: round(stats.executionUpdates / executions, 1),
    db_scans_per_execution: round(stats.scans / executions, 1),
    db_per_execution_by_table: Object.fromEntries(
      Object.entries(stats.byTable)
        .filter(([, [w, r]]) => w + r > 0)
        .map(([t, [w, r]]) => [t, { row_writes: round(w / executions, 1), scans: round(r / executions, 1) }]),
    ),
  };
}

/** Saves the run's figures to bench/results.json under `intake-latency`. */
function save(run: Run): void {
  const { latencies } = run;
  const pick = (f: (b: Breakdown) => number) => run.parts.map(f);
  const fig = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), p99: round(percentile(xs, 99), 1) });
  const p99 = percentile(latencies, 99);
  saveResult('intake-latency', {
    settings: {
      forms: FORMS,
      warmup: WARMUP,
      concurrency: CONCURRENCY,
      serve_processes: 1,
      mode: 'queue (PostgreSQL + Redis)',
      intake_delay_ms: 0,
      typing_delay_ms: 0,
      ai: 'fake OpenAI, instant',
      quick: QUICK,
      profiled: PROFILE_DIR !== '',
    },
    figures: {
      p50_ms: round(percentile(latencies, 50), 1),
      p99_ms: round(p99, 1),
      max_ms: round(Math.max(...latencies), 1),
      mean_ms: round(mean(latencies), 1),
      post_to_202_ms: fig(run.accepted),
      breakdown_ms: {
        accept: fig(pick((b) => b.accept)),
        queue_hop: fig(pick((b) => b.queueHop)),
        walk: fig(pick((b) => b.walk)),
        walk_in_nodes: fig(pick((b) => b.nodeTime)),
        walk_in_engine: fig(pick((b) => b.engineTime)),
        send: fig(pick((b) => b.send)),
        steps_before_send: percentile(
          pick((b) => b.stepsBeforeSend),
          50,
        ),
      },
      record_kb_p50: round(
        percentile(
          pick((b) => b.recordKb),
          50,
        ),
        1,
      ),
      ...dbFigures(run),
      wall_s: round(run.wallS, 1),
      serve_rss_mb: round(run.rssMb, 0),
    },
    targets: [{ target: `form → first message p99 < ${TARGET_P99_MS} ms`, met: p99 < TARGET_P99_MS }],
  });
}

/** What the server saw when the run failed: its last log lines, and the executions that did not succeed. */
async function explainFailure(services: BenchServices, serveProc: LeadflowProcess | undefined): Promise<void> {
  console.error(`serve log (tail):\n${serveProc?.logs().slice(-3000) ?? '(not started)'}`);
  const bad = (await services
    .knex('executions')
    .whereNot('status', 'success')
    .select('id', 'status', 'error', 'stop_reason')
    .limit(5)
    .catch(() => [])) as unknown[];
  if (bad.length > 0) console.error('executions not succeeded (first 5):', JSON.stringify(bad, null, 1));
}

async function main(): Promise<void> {
  // LOG_LEVEL info (serve's default, too): `.serve()` waits for the "listening on port" info line.
  const services = await startServices({ logLevel: 'info' });
  let serveProc: LeadflowProcess | undefined;
  let ownRedis: Redis | undefined;
  try {
    const settings = await serveEnv();
    ownRedis = settings.ownRedis;
    const { proc, url } = await services.serve('serve', settings.extraEnv);
    serveProc = proc;
    const run = await measure(services, proc, url);
    report(run);
    save(run);
  } catch (err) {
    await explainFailure(services, serveProc);
    throw err;
  } finally {
    await services.close();
    if (ownRedis) {
      await ownRedis.flushdb().catch(() => undefined);
      ownRedis.disconnect();
    }
    if (preloadDir) rmSync(preloadDir, { recursive: true, force: true });
  }
}

runMain(main);
