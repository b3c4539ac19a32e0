// Ingest benchmark: how many gateway message events per second `POST /leadagent` accepts, and how
// fast it answers, against two hand-written express "floors" doing the same essential work
// (bench/floor/ingest-floor.ts), in the same run, one target at a time. Two modes
// (BENCH_INGEST_MODE), each with its own figures:
//   queue     (default) PostgreSQL + Redis: LeadFlow with DATABASE_URL and REDIS_URL (a fresh schema
//             and Redis database, bench/lib/services.ts); the floors read the same schema and push
//             into the same Redis database (keys of their own). Saved as `ingest`.
//   embedded  no PostgreSQL, no Redis: LeadFlow with neither DATABASE_URL nor REDIS_URL, so on the
//             SQLite file `leadflow.sqlite` of a fresh temporary LEADFLOW_DATA_DIR (migrated and
//             seeded through the CLI, the same clinic and leads) with its in-process key-value store
//             (written through to that file) and scheduler; the floors read the same file
//             (better-sqlite3) and push into an in-process buffer. Saved as `ingest-embedded`.
// `npm run bench -- ingest` runs the queue mode, `npm run bench -- ingest-embedded` the embedded
// one; `npm run bench` runs both (bench/run.ts).
//
// The targets, in turn and each alone (the previous one stopped before the next starts):
//   floor          bench/floor/ingest-floor.ts: token SELECT, ajv validation, lead SELECT, buffer
//                  push, answer; nothing on record.
//   durable floor  the same with FLOOR_DURABLE=1: plus one INSERT of the request's raw body into a
//                  table of its own (`bench_floor_events`), committed before answering — the cheapest
//                  way to have the message durably on record, so the cost of durability itself shows
//                  (durable floor against floor) apart from LeadFlow's own (LeadFlow against durable
//                  floor). After its run its rows are counted (at least one per "queued" answer it
//                  gave, warm-up included, or the run fails) and the table is dropped.
//   effects floor  the floor with FLOOR_EFFECTS=1: LeadFlow's durable effects per message, by hand,
//                  one statement or command each as LeadFlow's (bench/floor/ingest-floor.ts, steps
//                  a–f): a row inserted with the event, the dedupe mark, the lead's UPDATE, the
//                  follow-up cancel UPDATE, the buffer push, the row's UPDATE to waiting — the
//                  least any engine keeping what LeadFlow keeps must do, so LeadFlow against it is
//                  the engine's own cost, and it against the floor what those effects cost. After
//                  its run its waiting rows are counted (at least one per "queued" answer, warm-up
//                  included, or the run fails) and its table is dropped.
//   record floor   only with BENCH_INGEST_RECORD_FLOOR=1, after leadflow: the effects floor whose
//                  last UPDATE also writes what LeadFlow stored of one of its own agent executions of
//                  this run (the row's JSON columns and the journal entries, bench/lib/stored-record.ts;
//                  FLOOR_RECORD_FILE), stringified anew per message — the effects floor with LeadFlow's
//                  record bytes, so the share of the gap those bytes explain shows. Reported without a
//                  target; its waiting rows are counted (at least one per "queued" answer) and its table
//                  dropped.
//   leadflow       one `leadflow serve` (queue mode: it answers the webhooks and takes the jobs;
//                  embedded: everything runs in its process) with LEADFLOW_DEBOUNCE_MS =
//                  LEADFLOW_DEBOUNCE_MAX_MS = 600000: each message's execution runs the agent flow up
//                  to its `debounce` step (token check, lead/clinic/protocol reads, dedupe, lead
//                  update, the queued answer, the buffer push) and then waits there, durably, for 10
//                  minutes — longer than the run — so the agent itself (OpenAI, gateway sends) never
//                  runs during the measurement and what is measured is ingest only. After its run,
//                  the agent executions are counted by status: there must be at least as many as 2xx
//                  answers LeadFlow gave (warm-up included), or the run fails. LeadFlow logs at
//                  `info`, its default level (one JSON line per execution drive, to stdout),
//                  unless BENCH_INGEST_LOG_LEVEL says otherwise.
// The floors run as their own process (`node --import tsx`), on the same database as LeadFlow. What
// a commit waits for is the database's setting, the same for LeadFlow and the durable floor, and is
// saved with the settings: PostgreSQL's `synchronous_commit` (on: flushed to disk), SQLite's
// `synchronous` (NORMAL in WAL, better-sqlite3's default, which LeadFlow keeps: it survives a crash
// of the process, not a power loss).
//
// What is measured: autocannon (as a library, in this process) keeps BENCH_CONNECTIONS connections
// busy for BENCH_INGEST_SECONDS against each target, after a warm-up of BENCH_INGEST_WARMUP_SECONDS
// per target that is not counted. Every request is a text event of the real gateway shape
// (test/helpers/uazapi-events.ts) from one of BENCH_INGEST_LEADS leads in rotation, each with a
// unique messageid, so no request is a duplicate. Each answer must be 200 {"status":"queued"};
// anything else (non-2xx, another body, connection error, timeout) is an error, and more than 1%
// errors on any target fails the run (exit 1, nothing saved).
//
// Printed: a table of the figures per target, then one of the checks (ratios, targets, records).
// Figures (per target): rps = "queued" answers per second of measurement; p50/p99 = autocannon's
// latency percentiles of the answers received during the measurement, ms (a request still
// unanswered when it ends is not counted: when answers take longer than the measurement, the
// percentiles understate them); server CPU per queued answer = the server process's user+system CPU
// during the measurement / its queued answers, ms (steadier than rps when other work shares the
// machine). In queue mode PostgreSQL's and Redis's CPU is not included; in embedded mode the
// database work (SQLite, in the server process) is. Ratios: LeadFlow rps / floor rps, LeadFlow rps /
// durable floor rps, durable floor rps / floor rps, effects floor rps / floor rps (the share of the
// floor an engine can reach at best while it keeps what LeadFlow keeps). Requests the warm-up left unanswered are still
// being processed by the server at the start of the measurement (as under continuous load).
//
// Targets (issue 16), each with its own verdict; a miss is reported as MISSED, not a failure:
//   - LeadFlow's throughput >= 40% of the (plain) floor's;
//   - LeadFlow's server CPU per queued answer <= 2 ms;
//   - LeadFlow's p99 latency <= 150 ms (stated at 50 connections, the default).
// And against the effects floor (issue 31: what LeadFlow adds on top of the effects it must have):
//   - LeadFlow's throughput >= 60% of the effects floor's;
//   - LeadFlow's server CPU per queued answer <= 2 x the effects floor's;
//   - LeadFlow's p99 latency <= 2 x the effects floor's.
// The ratio against the durable floor is reported without a target. The embedded mode is judged
// against the same six targets.
//
// Run: `npx tsx bench/ingest.ts` (after `npm run build`: LeadFlow runs from dist/).
// Environment:
//   BENCH_INGEST_MODE             `queue` (default) or `embedded` (see above)
//   BENCH_INGEST_SECONDS          measured seconds per target; default 15 (5 with BENCH_QUICK=1)
//   BENCH_INGEST_WARMUP_SECONDS   uncounted warm-up per target, s; default 3
//   BENCH_CONNECTIONS             concurrent connections; default 50
//   BENCH_INGEST_LEADS            leads the events rotate over; default 5000
//   BENCH_QUICK=1                 short run (see above)
//   BENCH_INGEST_PROFILE_DIR      when set, every server runs with `--cpu-prof` and writes its
//                                 .cpuprofile under DIR/leadflow, DIR/floor, DIR/durable-floor and
//                                 DIR/effects-floor when it stops; the figures of such a run are
//                                 printed, not saved, and after them each server's profile is
//                                 summarised over its measured seconds only (its start and warm-up
//                                 left out: bench/lib/profile-summary.ts), top BENCH_INGEST_PROFILE_TOP
//                                 entries (default 15)
//   BENCH_INGEST_FROM_SOURCE=1    with BENCH_INGEST_PROFILE_DIR: LeadFlow runs from its TypeScript sources
//                                 (`node --import tsx cli/main.ts serve`), so the profile names each
//                                 function's own file rather than a bundle's chunk
//   BENCH_INGEST_RECORD_FLOOR=1   also run the record floor (above), after leadflow
//   BENCH_INGEST_LOG_LEVEL        LeadFlow's LOG_LEVEL (every `leadflow` process the run spawns);
//                                 default `info`, LeadFlow's own default. `silent` (or `warn`,
//                                 `error`, `fatal`) runs it without the line per execution, for a
//                                 side-by-side with `info`; `serve` then logs no `listening on port`
//                                 line, so it is started on a free port chosen here and is ready once
//                                 GET /healthz answers 200. The level is saved with the settings.
//   BENCH_DATABASE_URL, BENCH_REDIS_URL  servers of the queue mode (bench/lib/services.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOOR_EVENTS_TABLE, FLOOR_EXECUTIONS_TABLE } from './floor/floor-store.js';
import { grid, round, table, verdict, type Row } from './lib/stats.js';
import { saveResult } from './lib/results.js';
import { BIN, ROOT, sleep, startServices, type BenchMode, type BenchServices } from './lib/services.js';
import { cpuMs, freePort, runLoad, stopProcess } from './lib/load.js';
import { positiveInt, runMain } from './lib/main.js';
import { monotonicMicros, type ProfileWindow, windowedProfileReport } from './lib/profile-summary.js';
import { storedRecordOf } from './lib/stored-record.js';

// --- settings ------------------------------------------------------------------------------------
function envMode(): BenchMode {
  const raw = process.env.BENCH_INGEST_MODE || 'queue';
  if (raw !== 'queue' && raw !== 'embedded') throw new Error(`BENCH_INGEST_MODE must be queue or embedded, got "${raw}"`);
  return raw;
}

const MODE = envMode();
/** The entry in bench/results.json. */
const RESULT_NAME = MODE === 'queue' ? 'ingest' : 'ingest-embedded';
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = positiveInt('BENCH_INGEST_SECONDS', QUICK ? 5 : 15);
const WARMUP_SECONDS = positiveInt('BENCH_INGEST_WARMUP_SECONDS', 3);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const LEADS = positiveInt('BENCH_INGEST_LEADS', 5000);
const PROFILE_DIR = process.env.BENCH_INGEST_PROFILE_DIR || undefined;
const PROFILE_TOP = positiveInt('BENCH_INGEST_PROFILE_TOP', 15);
/** Whether the record floor runs too (BENCH_INGEST_RECORD_FLOOR=1). */
const RECORD_FLOOR = process.env.BENCH_INGEST_RECORD_FLOOR === '1';
/** LeadFlow's LOG_LEVEL (BENCH_INGEST_LOG_LEVEL), `info` by default. */
const LOG_LEVEL = process.env.BENCH_INGEST_LOG_LEVEL || 'info';
/** Whether `serve` logs its `listening on port N` line (at info) at LOG_LEVEL. */
const LOGS_LISTENING = ['trace', 'debug', 'info'].includes(LOG_LEVEL);
/** More errors than this share of the answers fails the run. */
const MAX_ERROR_SHARE = 0.01;
/** LeadFlow's throughput must be at least this share of the (plain) floor's. */
const TARGET_RATIO = 0.4;
/** LeadFlow's server CPU per queued answer must be at most this, ms. */
const TARGET_CPU_MS = 2;
/** LeadFlow's p99 latency must be at most this, ms. */
const TARGET_P99_MS = 150;
/** LeadFlow's throughput must be at least this share of the effects floor's. */
const TARGET_EFFECTS_RATIO = 0.6;
/** LeadFlow's server CPU per queued answer must be at most this multiple of the effects floor's. */
const TARGET_EFFECTS_CPU_FACTOR = 2;
/** LeadFlow's p99 latency must be at most this multiple of the effects floor's. */
const TARGET_EFFECTS_P99_FACTOR = 2;
/** The debounce window LeadFlow runs with: longer than the run, so no agent runs, ms. */
const DEBOUNCE_MS = '600000';
const QUEUED = '{"status":"queued"}';
const FLOOR_FILE = join(import.meta.dirname, 'floor', 'ingest-floor.ts');

// --- request bodies ------------------------------------------------------------------------------
const ID_MARK = 'BENCHMSGIDMARK';

/**
 * Each lead's event serialised once, split around its messageid (which appears nowhere else in the
 * event), so a request's body is built by concatenation: the client's CPU stays off the figures as
 * much as it can (it shares the machine with the servers).
 */
function bodyMaker(services: BenchServices, phones: string[]): () => string {
  const parts = phones.map((phone) => {
    const json = JSON.stringify(services.leadEvent(phone, 'Oi, quero saber mais sobre as lentes', ID_MARK));
    const pieces = json.split(ID_MARK);
    if (pieces.length !== 2) throw new Error('the event template carries its messageid more than once');
    return pieces as [string, string];
  });
  let seq = 0;
  const run = `${process.pid.toString(36)}${Date.now().toString(36)}`.toUpperCase();
  return () => {
    const [head, tail] = parts[seq % parts.length]!;
    seq++;
    return `${head}3EB0BENCH${run}${seq.toString(36).toUpperCase()}${tail}`;
  };
}

// --- load ----------------------------------------------------------------------------------------
interface Load {
  seconds: number;
  /** Answers 200 {"status":"queued"}. */
  queued: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** 2xx answers whose body was not {"status":"queued"}. */
  otherBody: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon `errors`, timeouts included). */
  connectionErrors: number;
  errors: number;
  errorShare: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** A few unexpected answers, for the report. */
  samples: string[];
}

async function fire(url: string, seconds: number, nextBody: () => string): Promise<Load> {
  const statuses: Record<string, number> = {};
  let queued = 0;
  let otherBody = 0;
  const samples: string[] = [];
  const result = await runLoad({
    url,
    path: '/leadagent',
    headers: { 'content-type': 'application/json', 'x-webhook-secret': 'bench-secret' },
    seconds,
    connections: CONNECTIONS,
    body: nextBody,
    onAnswer: (status, body) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 200 && body === QUEUED) queued++;
      else {
        if (status >= 200 && status < 300) otherBody++;
        if (samples.length < 5) samples.push(`${status} ${body.slice(0, 200)}`);
      }
    },
  });
  const answers = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = result.non2xx + otherBody + result.connectionErrors;
  return {
    seconds: result.seconds,
    queued,
    statuses,
    otherBody,
    non2xx: result.non2xx,
    connectionErrors: result.connectionErrors,
    errors,
    errorShare: errors / Math.max(1, answers + result.connectionErrors),
    rps: queued / result.seconds,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    samples,
  };
}

/**
 * Warm-up (uncounted), then the measured load; `cpuMsPerQueued` is the server process's CPU time
 * during the measured load per queued answer, ms (the database's and Redis's CPU not included):
 * steadier than the rates on a machine shared with other work.
 */
interface Measured {
  warmup: Load;
  load: Load;
  /** Server CPU per queued answer during the measured load, ms. */
  cpuMsPerQueued: number;
  /** The server's process id, and when the measured load ran (on the clock of its CPU profile). */
  pid: number | undefined;
  window: ProfileWindow;
}

async function measure(name: string, server: Server, nextBody: () => string): Promise<Measured> {
  const warmup = await fire(server.url, WARMUP_SECONDS, nextBody);
  console.log(`${name}: warm-up ${WARMUP_SECONDS} s, ${warmup.queued} queued, ${warmup.errors} errors; measuring ${SECONDS} s`);
  const cpuBefore = cpuMs(server.child.pid);
  const fromUs = monotonicMicros();
  const load = await fire(server.url, SECONDS, nextBody);
  const window = { fromUs, toUs: monotonicMicros() };
  const cpuMsPerQueued = (cpuMs(server.child.pid) - cpuBefore) / Math.max(1, load.queued);
  console.log(`${name}: ${load.queued} queued in ${load.seconds} s, ${load.errors} errors ${JSON.stringify(load.statuses)}`);
  return { warmup, load, cpuMsPerQueued, pid: server.child.pid, window };
}

/** 2xx answers of a load (each one is a recorded execution on LeadFlow). */
const count2xx = (load: Load) =>
  Object.entries(load.statuses).reduce((sum, [status, n]) => (Number(status) >= 200 && Number(status) < 300 ? sum + n : sum), 0);

// --- spawned servers ----------------------------------------------------------------------------
interface Server {
  child: ChildProcess;
  url: string;
}

/** Spawns `node ...args` in the repository and resolves once it logs `listening on port N`. */
async function spawnServer(name: string, args: string[], env: Record<string, string | undefined>): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const started = Date.now();
  for (;;) {
    const port = /listening on port (\d+)/.exec(output)?.[1];
    if (port) return { child, url: `http://127.0.0.1:${port}` };
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before listening:\n${output}`);
    if (Date.now() - started > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not listen within 30 s:\n${output}`);
    }
    await sleep(25);
  }
}

const cpuProfFlags = (dir: string | undefined) => (dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []);

/** Which floor: the plain one, the durable one (one INSERT of the event per request), the effects one, or the record one. */
interface FloorKind {
  name: 'floor' | 'durable floor' | 'effects floor' | 'record floor';
  durable: boolean;
  effects: boolean;
  /** Namespace of its buffer keys: each floor starts on empty buffers. */
  kvPrefix: string;
  /** Subdirectory of BENCH_INGEST_PROFILE_DIR. */
  profileDir: string;
  /** The record floor's FLOOR_RECORD_FILE. */
  recordFile?: string;
}
const PLAIN_FLOOR: FloorKind = { name: 'floor', durable: false, effects: false, kvPrefix: 'bench-floor:', profileDir: 'floor' };
const DURABLE_FLOOR: FloorKind = {
  name: 'durable floor',
  durable: true,
  effects: false,
  kvPrefix: 'bench-durable-floor:',
  profileDir: 'durable-floor',
};
const EFFECTS_FLOOR: FloorKind = {
  name: 'effects floor',
  durable: false,
  effects: true,
  kvPrefix: 'bench-effects-floor:',
  profileDir: 'effects-floor',
};

/**
 * A floor, its own process, on the services' database (PostgreSQL schema, or the embedded SQLite
 * file) and buffer (Redis database, or in-process when REDIS_URL is empty).
 */
function startFloor(services: BenchServices, kind: FloorKind): Promise<Server> {
  const env = {
    ...process.env,
    DATABASE_URL: services.env.DATABASE_URL,
    REDIS_URL: services.env.REDIS_URL,
    LEADFLOW_DATA_DIR: services.env.LEADFLOW_DATA_DIR,
    LEADFLOW_DEBOUNCE_MAX_MS: DEBOUNCE_MS,
    FLOOR_DURABLE: kind.durable ? '1' : '0',
    FLOOR_EFFECTS: kind.effects ? '1' : '0',
    FLOOR_KV_PREFIX: kind.kvPrefix,
    FLOOR_RECORD_FILE: kind.recordFile ?? '',
    PORT: '0',
  };
  const profile = cpuProfFlags(PROFILE_DIR && join(PROFILE_DIR, kind.profileDir));
  return spawnServer(`the ${kind.name}`, ['--import', 'tsx', ...profile, FLOOR_FILE], env);
}

/** Runs one floor alone (started, measured, stopped). */
async function runFloor(services: BenchServices, kind: FloorKind, nextBody: () => string): Promise<Measured> {
  const floor = await startFloor(services, kind);
  try {
    return await measure(kind.name, floor, nextBody);
  } finally {
    await stopProcess(floor.child);
  }
}

/** The record floor's run: its figures, its rows that reached `waiting` and the size of the record it wrote. */
interface RecordFloorRun {
  measured: Measured;
  rows: number;
  /** What LeadFlow stored of the sampled execution, characters of JSON text (StoredRecord.chars). */
  chars: number;
}

/**
 * The record floor (BENCH_INGEST_RECORD_FLOOR): what LeadFlow stored of one of its agent executions
 * of this run, written to a temporary file the floor reads at start; then the floor alone, and its
 * rows (its table then dropped).
 */
async function runRecordFloor(services: BenchServices, nextBody: () => string): Promise<RecordFloorRun> {
  const stored = await storedRecordOf(services.knex, 'agent');
  if (!stored) throw new Error("the record floor needs one of LeadFlow's waiting agent executions, and there is none");
  const dir = mkdtempSync(join(tmpdir(), 'leadflow-bench-record-'));
  try {
    const recordFile = join(dir, 'record.json');
    writeFileSync(recordFile, JSON.stringify(stored.value));
    console.log(`record floor: writes what LeadFlow stored of execution ${stored.id} (${stored.chars} characters of JSON) per message`);
    const kind: FloorKind = {
      ...EFFECTS_FLOOR,
      name: 'record floor',
      kvPrefix: 'bench-record-floor:',
      profileDir: 'record-floor',
      recordFile,
    };
    const measured = await runFloor(services, kind, nextBody);
    return { measured, rows: await takeFloorExecutions(services), chars: stored.chars };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The durable floor's rows (its table then dropped, so LeadFlow runs on the database as seeded). */
async function takeFloorEvents(services: BenchServices): Promise<number> {
  const row = (await services.knex(FLOOR_EVENTS_TABLE).count({ n: '*' }).first()) as { n: string | number } | undefined;
  await services.knex.schema.dropTableIfExists(FLOOR_EVENTS_TABLE);
  return Number(row?.n ?? 0);
}

/** The effects floor's rows that reached `waiting` (its table then dropped). */
async function takeFloorExecutions(services: BenchServices): Promise<number> {
  const row = (await services.knex(FLOOR_EXECUTIONS_TABLE).where({ status: 'waiting' }).count({ n: '*' }).first()) as
    | { n: string | number }
    | undefined;
  await services.knex.schema.dropTableIfExists(FLOOR_EXECUTIONS_TABLE);
  return Number(row?.n ?? 0);
}

/**
 * What a commit waits for, as the database reports it (for the settings): PostgreSQL's
 * `synchronous_commit` (on: the WAL is flushed to disk), or SQLite's journal mode and `synchronous`
 * (NORMAL in WAL: written to the WAL, flushed to disk at checkpoints; it survives a crash of the
 * process, not of the machine).
 */
async function commitDurability(services: BenchServices): Promise<string> {
  if (services.mode === 'queue') {
    const result = (await services.knex.raw('show synchronous_commit')) as { rows: Array<{ synchronous_commit: string }> };
    return `synchronous_commit ${result.rows[0]?.synchronous_commit ?? 'unknown'}`;
  }
  const [journal] = (await services.knex.raw('pragma journal_mode')) as Array<{ journal_mode: string }>;
  const [sync] = (await services.knex.raw('pragma synchronous')) as Array<{ synchronous: number }>;
  return `journal_mode ${journal?.journal_mode ?? 'unknown'}, synchronous ${['OFF', 'NORMAL', 'FULL', 'EXTRA'][sync?.synchronous ?? -1] ?? 'unknown'}`;
}

/**
 * One `leadflow serve`. Profiled: spawned here with `--cpu-prof` (Node 20 refuses it in
 * NODE_OPTIONS, so services.serve() cannot pass it), with the services' environment.
 */
async function startLeadflow(services: BenchServices): Promise<Server> {
  if (!LOGS_LISTENING) return spawnQuietServe(services);
  if (!PROFILE_DIR) {
    const { proc, url } = await services.serve('serve');
    return { child: proc.child, url };
  }
  const command = process.env.BENCH_INGEST_FROM_SOURCE === '1' ? ['--import', 'tsx', join(ROOT, 'cli', 'main.ts')] : [BIN];
  return spawnServer('leadflow serve', [...cpuProfFlags(join(PROFILE_DIR, 'leadflow')), ...command, 'serve'], {
    ...process.env,
    ...services.env,
  });
}

/**
 * `leadflow serve` at a LOG_LEVEL without its `listening on port` line: on a free port chosen here
 * (bound, then released), ready once GET /healthz answers 200; profiled like startLeadflow's.
 */
async function spawnQuietServe(services: BenchServices): Promise<Server> {
  const port = await freePort();
  const args = [...cpuProfFlags(PROFILE_DIR && join(PROFILE_DIR, 'leadflow')), BIN, 'serve'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...services.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      )
    )
      return { child, url };
    if (child.exitCode !== null) throw new Error(`leadflow serve exited (${child.exitCode}) before answering /healthz:\n${output}`);
    if (Date.now() - started > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`leadflow serve did not answer /healthz within 30 s:\n${output}`);
    }
    await sleep(25);
  }
}

// --- main ----------------------------------------------------------------------------------------
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
/** Queued answers of a target, warm-up included. */
const queuedInAll = (run: Measured) => run.warmup.queued + run.load.queued;

/** Every target's run and what was counted after them. */
interface Runs {
  leadflow: Measured;
  floor: Measured;
  durable: Measured;
  effects: Measured;
  /** The durable floor's rows (FLOOR_EVENTS_TABLE). */
  floorEvents: number;
  /** The effects floor's rows that reached `waiting` (FLOOR_EXECUTIONS_TABLE). */
  floorExecutions: number;
  /** Agent executions recorded, by status, and in all. */
  byStatus: Record<string, number>;
  executions: number;
  /** LeadFlow's 2xx answers, warm-up included. */
  answered2xx: number;
  /** What a commit waits for (commitDurability). */
  durability: string;
  /** The record floor's run, with BENCH_INGEST_RECORD_FLOOR=1. */
  record?: RecordFloorRun;
}

/** Agent executions recorded, by status (every accepted request must be one). */
async function agentExecutionsByStatus(services: BenchServices): Promise<Record<string, number>> {
  const counts = (await services
    .knex('executions')
    .where({ flow: 'agent' })
    .groupBy('status')
    .select('status')
    .count({ n: '*' })) as Array<{ status: string; n: string | number }>;
  return Object.fromEntries(counts.map((r) => [r.status, Number(r.n)]));
}

/**
 * Each target alone: the floors, then LeadFlow (each stopped before the next), then the counts.
 * `serving` is told LeadFlow's process as soon as it runs, so the caller can stop it on a failure.
 */
async function runTargets(services: BenchServices, nextBody: () => string, serving: (child: ChildProcess) => void): Promise<Runs> {
  const durability = await commitDurability(services);
  console.log(`database commits: ${durability}`);
  const floor = await runFloor(services, PLAIN_FLOOR, nextBody);
  const durable = await runFloor(services, DURABLE_FLOOR, nextBody);
  const floorEvents = await takeFloorEvents(services);
  const effects = await runFloor(services, EFFECTS_FLOOR, nextBody);
  const floorExecutions = await takeFloorExecutions(services);

  const serve = await startLeadflow(services);
  serving(serve.child);
  const leadflow = await measure('leadflow', serve, nextBody);
  const byStatus = await agentExecutionsByStatus(services);
  const executions = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const answered2xx = count2xx(leadflow.warmup) + count2xx(leadflow.load);
  // Graceful stop (hands its work back; writes the CPU profile when asked).
  await stopProcess(serve.child);
  const record = RECORD_FLOOR ? await runRecordFloor(services, nextBody) : undefined;
  return { leadflow, floor, durable, effects, floorEvents, floorExecutions, byStatus, executions, answered2xx, durability, record };
}

/** The throughput ratios between the targets, and which targets LeadFlow met. */
function ratiosOf(runs: Runs) {
  const lf = runs.leadflow.load;
  const fl = runs.floor.load;
  const cpuFactor = runs.leadflow.cpuMsPerQueued / runs.effects.cpuMsPerQueued;
  const p99Factor = lf.p99Ms / runs.effects.load.p99Ms;
  return {
    ratio: lf.rps / fl.rps,
    ratioDurable: lf.rps / runs.durable.load.rps,
    durableShare: runs.durable.load.rps / fl.rps,
    effectsShare: runs.effects.load.rps / fl.rps,
    ratioEffects: lf.rps / runs.effects.load.rps,
    /** LeadFlow's server CPU per queued answer / the effects floor's. */
    cpuFactor,
    /** LeadFlow's p99 / the effects floor's. */
    p99Factor,
    met: {
      ratio: lf.rps / fl.rps >= TARGET_RATIO,
      cpu: runs.leadflow.cpuMsPerQueued <= TARGET_CPU_MS,
      p99: lf.p99Ms <= TARGET_P99_MS,
      effectsRatio: lf.rps / runs.effects.load.rps >= TARGET_EFFECTS_RATIO,
      effectsCpu: cpuFactor <= TARGET_EFFECTS_CPU_FACTOR,
      effectsP99: p99Factor <= TARGET_EFFECTS_P99_FACTOR,
    },
  };
}
type Ratios = ReturnType<typeof ratiosOf>;

/** A check reported without a target. */
const noTarget = (measure: string, value: number): Row => ({ measure, value: fmt(value, 3), against: '(no target)', verdict: '' });

/** A record count against the answers that promised it: `LOST` when fewer were kept. */
const kept = (measure: string, value: number, required: number, what: string): Row => ({
  measure,
  value: String(value),
  against: `>= ${required} (${what})`,
  verdict: value >= required ? 'ok' : 'LOST',
});

/** The checks table: ratios and targets, then the records each target must have kept. */
function checkRows(runs: Runs, r: Ratios): Row[] {
  const durableQueued = queuedInAll(runs.durable);
  const effectsQueued = queuedInAll(runs.effects);
  return [
    { measure: 'throughput ratio leadflow/floor', value: fmt(r.ratio, 3), against: `>= ${TARGET_RATIO}`, verdict: verdict(r.met.ratio) },
    noTarget('throughput ratio leadflow/durable floor', r.ratioDurable),
    {
      measure: 'throughput ratio leadflow/effects floor',
      value: fmt(r.ratioEffects, 3),
      against: `>= ${TARGET_EFFECTS_RATIO}`,
      verdict: verdict(r.met.effectsRatio),
    },
    {
      measure: 'server CPU per answer, leadflow/effects floor',
      value: fmt(r.cpuFactor, 2),
      against: `<= ${TARGET_EFFECTS_CPU_FACTOR}`,
      verdict: verdict(r.met.effectsCpu),
    },
    {
      measure: 'latency p99, leadflow/effects floor',
      value: fmt(r.p99Factor, 2),
      against: `<= ${TARGET_EFFECTS_P99_FACTOR}`,
      verdict: verdict(r.met.effectsP99),
    },
    noTarget('throughput ratio effects floor/floor', r.effectsShare),
    {
      measure: 'leadflow server CPU per queued answer, ms',
      value: fmt(runs.leadflow.cpuMsPerQueued, 2),
      against: `<= ${TARGET_CPU_MS}`,
      verdict: verdict(r.met.cpu),
    },
    {
      measure: `leadflow latency p99, ms (${CONNECTIONS} connections)`,
      value: fmt(runs.leadflow.load.p99Ms, 2),
      against: `<= ${TARGET_P99_MS}`,
      verdict: verdict(r.met.p99),
    },
    kept('agent executions recorded', runs.executions, runs.answered2xx, "leadflow's 2xx answers"),
    kept(`durable floor rows (${FLOOR_EVENTS_TABLE})`, runs.floorEvents, durableQueued, 'its queued answers'),
    kept(`effects floor rows waiting (${FLOOR_EXECUTIONS_TABLE})`, runs.floorExecutions, effectsQueued, 'its queued answers'),
    ...(runs.record ? recordChecks(runs, runs.record) : []),
  ];
}

/** The record floor's checks: LeadFlow against it (no target) and the rows it kept. */
function recordChecks(runs: Runs, record: RecordFloorRun): Row[] {
  return [
    noTarget('throughput ratio leadflow/record floor', runs.leadflow.load.rps / record.measured.load.rps),
    noTarget('server CPU per answer, leadflow/record floor', runs.leadflow.cpuMsPerQueued / record.measured.cpuMsPerQueued),
    noTarget('throughput ratio record floor/effects floor', record.measured.load.rps / runs.effects.load.rps),
    kept(`record floor rows waiting (${FLOOR_EXECUTIONS_TABLE})`, record.rows, queuedInAll(record.measured), 'its queued answers'),
  ];
}

/** Prints the figures per target, the checks and the agent executions by status. */
function report(runs: Runs, r: Ratios): void {
  const all = [runs.leadflow, runs.floor, runs.durable, runs.effects, ...(runs.record ? [runs.record.measured] : [])];
  const fl = runs.floor.load;
  const figureRows: string[][] = [
    ['throughput, queued answers/s', ...all.map((m) => fmt(m.load.rps))],
    ['throughput, share of the floor', ...all.map((m) => fmt(m.load.rps / fl.rps, 3))],
    ['latency p50, ms', ...all.map((m) => fmt(m.load.p50Ms, 2))],
    ['latency p99, ms', ...all.map((m) => fmt(m.load.p99Ms, 2))],
    ['server CPU per queued answer, ms', ...all.map((m) => fmt(m.cpuMsPerQueued, 2))],
    ['errors (non-2xx, other body, conn.)', ...all.map((m) => `${m.load.errors} (${fmt(m.load.errorShare * 100, 2)}%)`)],
  ];
  const columns = ['measure', 'leadflow', 'floor', 'durable floor', 'effects floor', ...(runs.record ? ['record floor'] : [])];
  console.log(`\n${grid(columns, figureRows)}`);
  console.log(`\n${table(checkRows(runs, r), { measure: 'check', value: 'measured', against: 'target', verdict: 'verdict' })}`);
  console.log(`agent executions by status: ${JSON.stringify(runs.byStatus)}`);
}

/** What fails the run: too many errors or no queued answer on a target, or a record a target did not keep. */
function problemsOf(runs: Runs): string[] {
  const problems: string[] = [];
  for (const [name, run] of [
    ['floor', runs.floor],
    ['durable floor', runs.durable],
    ['effects floor', runs.effects],
    ['leadflow', runs.leadflow],
    ...(runs.record ? [['record floor', runs.record.measured] as const] : []),
  ] as const) {
    if (run.load.errorShare > MAX_ERROR_SHARE)
      problems.push(
        `${name}: ${fmt(run.load.errorShare * 100, 2)}% errors (more than ${MAX_ERROR_SHARE * 100}%): ${JSON.stringify(run.load.statuses)}, ${run.load.connectionErrors} connection errors; e.g. ${run.load.samples.join(' | ')}`,
      );
    if (run.load.queued === 0)
      problems.push(`${name}: no "queued" answer during the ${SECONDS} s measured (no figures): a longer BENCH_INGEST_SECONDS may help`);
  }
  const durableQueued = queuedInAll(runs.durable);
  const effectsQueued = queuedInAll(runs.effects);
  if (runs.executions < runs.answered2xx)
    problems.push(`leadflow answered 2xx ${runs.answered2xx} times but recorded ${runs.executions} agent executions`);
  if (runs.floorEvents < durableQueued)
    problems.push(`the durable floor answered "queued" ${durableQueued} times but ${FLOOR_EVENTS_TABLE} holds ${runs.floorEvents} rows`);
  if (runs.floorExecutions < effectsQueued)
    problems.push(
      `the effects floor answered "queued" ${effectsQueued} times but ${FLOOR_EXECUTIONS_TABLE} holds ${runs.floorExecutions} waiting rows`,
    );
  if (runs.record && runs.record.rows < queuedInAll(runs.record.measured))
    problems.push(
      `the record floor answered "queued" ${queuedInAll(runs.record.measured)} times but ${FLOOR_EXECUTIONS_TABLE} holds ${runs.record.rows} waiting rows`,
    );
  return problems;
}

/** One target's saved figures. */
const figures = (run: Measured) => ({
  rps: round(run.load.rps, 1),
  p50_ms: round(run.load.p50Ms, 2),
  p99_ms: round(run.load.p99Ms, 2),
  queued: run.load.queued,
  errors: run.load.errors,
  non2xx: run.load.non2xx,
  other_body_2xx: run.load.otherBody,
  connection_errors: run.load.connectionErrors,
  measured_s: round(run.load.seconds, 2),
  server_cpu_ms_per_queued: round(run.cpuMsPerQueued, 2),
});

/** The saved settings: the mode's database, queue and key-value store, the sizes and what each target does. */
function settingsOf(durability: string): Record<string, unknown> {
  const floorWork =
    MODE === 'queue'
      ? 'express + ajv + token SELECT + lead SELECT + Redis bufferPush'
      : 'express + ajv + token SELECT + lead SELECT (better-sqlite3 on the same file) + in-process bufferPush (MemoryKeyValue)';
  return {
    mode: MODE,
    endpoint: 'POST /leadagent',
    ...(MODE === 'queue'
      ? { database: `postgresql (${durability})`, queue: 'redis (bullmq)', key_value: 'redis' }
      : {
          database: `sqlite (one file in a temporary LEADFLOW_DATA_DIR; ${durability})`,
          queue: 'in-process scheduler',
          key_value: 'in-process (leadflow: written through to the SQLite file)',
        }),
    connections: CONNECTIONS,
    measured_s: SECONDS,
    warmup_s: WARMUP_SECONDS,
    leads: LEADS,
    log_level: LOG_LEVEL,
    leadflow: `one \`leadflow serve\` (${MODE} mode, LOG_LEVEL=${LOG_LEVEL}), LEADFLOW_DEBOUNCE_MS = LEADFLOW_DEBOUNCE_MAX_MS = 600000 (no agent run during the measurement)`,
    floor: `bench/floor/ingest-floor.ts: ${floorWork}`,
    durable_floor: `bench/floor/ingest-floor.ts with FLOOR_DURABLE=1: the floor + one INSERT of the raw body into ${FLOOR_EVENTS_TABLE} per request, before the buffer push and the answer`,
    effects_floor: `bench/floor/ingest-floor.ts with FLOOR_EFFECTS=1: the floor + LeadFlow's durable effects per message by hand (row INSERT with the event, dedupe mark, lead UPDATE, follow-up cancel UPDATE, buffer push, row UPDATE to waiting with a small record), before the answer`,
    ...(RECORD_FLOOR
      ? {
          record_floor:
            "the effects floor + LeadFlow's stored record of one of its agent executions of this run (its JSON, stringified per message) in the row's UPDATE to waiting",
        }
      : {}),
    order: `floor, durable floor, effects floor, then leadflow${RECORD_FLOOR ? ', then the record floor' : ''} (each alone)`,
  };
}

/** The record floor's saved figures. */
function recordFigures(runs: Runs, record: RecordFloorRun): Record<string, unknown> {
  return {
    record_floor: figures(record.measured),
    record_floor_stored_chars: record.chars,
    ratio_rps_vs_record_floor: round(runs.leadflow.load.rps / record.measured.load.rps, 3),
    cpu_factor_vs_record_floor: round(runs.leadflow.cpuMsPerQueued / record.measured.cpuMsPerQueued, 2),
    record_floor_waiting_rows: record.rows,
    record_floor_queued_incl_warmup: queuedInAll(record.measured),
  };
}

/** Saves the run to bench/results.json under RESULT_NAME. */
function save(runs: Runs, r: Ratios): void {
  saveResult(RESULT_NAME, {
    settings: settingsOf(runs.durability),
    figures: {
      leadflow: figures(runs.leadflow),
      floor: figures(runs.floor),
      durable_floor: figures(runs.durable),
      effects_floor: figures(runs.effects),
      ratio_rps: round(r.ratio, 3),
      ratio_rps_vs_durable_floor: round(r.ratioDurable, 3),
      durable_floor_ratio_rps: round(r.durableShare, 3),
      ratio_rps_vs_effects_floor: round(r.ratioEffects, 3),
      cpu_factor_vs_effects_floor: round(r.cpuFactor, 2),
      p99_factor_vs_effects_floor: round(r.p99Factor, 2),
      effects_floor_ratio_rps: round(r.effectsShare, 3),
      agent_executions: runs.executions,
      agent_executions_by_status: runs.byStatus,
      leadflow_2xx_answers_incl_warmup: runs.answered2xx,
      durable_floor_rows: runs.floorEvents,
      durable_floor_queued_incl_warmup: queuedInAll(runs.durable),
      effects_floor_waiting_rows: runs.floorExecutions,
      effects_floor_queued_incl_warmup: queuedInAll(runs.effects),
      ...(runs.record ? recordFigures(runs, runs.record) : {}),
    },
    targets: [
      {
        target: `LeadFlow >= ${TARGET_RATIO * 100}% of the floor's throughput (POST /leadagent, ${CONNECTIONS} connections, ${MODE} mode)`,
        met: r.met.ratio,
      },
      { target: `LeadFlow <= ${TARGET_CPU_MS} ms of server CPU per queued answer (${MODE} mode)`, met: r.met.cpu },
      { target: `LeadFlow p99 <= ${TARGET_P99_MS} ms at ${CONNECTIONS} connections (${MODE} mode)`, met: r.met.p99 },
      {
        target: `LeadFlow >= ${TARGET_EFFECTS_RATIO * 100}% of the effects floor's throughput (${MODE} mode)`,
        met: r.met.effectsRatio,
      },
      {
        target: `LeadFlow <= ${TARGET_EFFECTS_CPU_FACTOR}x the effects floor's server CPU per queued answer (${MODE} mode)`,
        met: r.met.effectsCpu,
      },
      {
        target: `LeadFlow p99 <= ${TARGET_EFFECTS_P99_FACTOR}x the effects floor's p99 (${MODE} mode)`,
        met: r.met.effectsP99,
      },
    ],
  });
}

/** Each server's profile, summarised over its measured seconds (see BENCH_INGEST_PROFILE_DIR). */
function printProfiles(dir: string, runs: Runs): void {
  for (const [name, measured, sub] of [
    ['leadflow', runs.leadflow, 'leadflow'],
    ['effects floor', runs.effects, EFFECTS_FLOOR.profileDir],
    ['durable floor', runs.durable, DURABLE_FLOOR.profileDir],
    ['floor', runs.floor, PLAIN_FLOOR.profileDir],
    ...(runs.record ? [['record floor', runs.record.measured, 'record-floor'] as const] : []),
  ] as const)
    console.log(`\n${windowedProfileReport(name, join(dir, sub), measured.pid, measured.window, PROFILE_TOP)}`);
}

async function main(): Promise<void> {
  console.log(
    `ingest (${MODE} mode): ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per target, ${LEADS} leads, LeadFlow at LOG_LEVEL=${LOG_LEVEL}`,
  );
  // LOG_LEVEL info by default: LeadFlow's default, one log line per execution drive (and the line `serve()` waits for).
  const services = await startServices({
    mode: MODE,
    logLevel: LOG_LEVEL,
    env: { LEADFLOW_DEBOUNCE_MS: DEBOUNCE_MS, LEADFLOW_DEBOUNCE_MAX_MS: DEBOUNCE_MS },
  });
  let serveChild: ChildProcess | undefined;
  try {
    const phones = await services.createLeads(LEADS);
    const nextBody = bodyMaker(services, phones);
    const runs = await runTargets(services, nextBody, (child) => {
      serveChild = child;
    });
    const ratios = ratiosOf(runs);
    report(runs, ratios);
    const problems = problemsOf(runs);
    if (problems.length > 0) throw new Error(`the run failed:\n  ${problems.join('\n  ')}`);
    if (PROFILE_DIR) {
      printProfiles(PROFILE_DIR, runs);
      process.stdout.write(
        `profiled run (--cpu-prof slows every server): figures not saved to bench/results.json; profiles under ${PROFILE_DIR}\n`,
      );
      return;
    }
    save(runs, ratios);
  } finally {
    if (serveChild) await stopProcess(serveChild, 15_000).catch(() => undefined);
    await services.close();
  }
}

runMain(main);
