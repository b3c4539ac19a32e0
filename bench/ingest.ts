// Ingest benchmark: how many gateway message events per second `POST /leadagent` accepts, and how
// fast it answers, on PostgreSQL + Redis (queue mode), against a hand-written express "floor" doing
// the same essential work (bench/floor/ingest-floor.ts), in the same run, side by side.
//
// What is measured: autocannon (as a library, in this process) keeps BENCH_CONNECTIONS connections
// busy for BENCH_INGEST_SECONDS against each target in turn — the floor first, then LeadFlow — after
// a warm-up of BENCH_INGEST_WARMUP_SECONDS per target that is not counted. Every request is a text
// event of the real gateway shape (test/helpers/uazapi-events.ts) from one of BENCH_INGEST_LEADS
// leads in rotation, each with a unique messageid, so no request is a duplicate. Each answer must be
// 200 {"status":"queued"}; anything else (non-2xx, another body, connection error, timeout) is an
// error, and more than 1% errors on either target fails the run (exit 1, nothing saved).
//
// LeadFlow: one `leadflow serve` (queue mode: it answers the webhooks and takes the jobs) with
// LEADFLOW_DEBOUNCE_MS = LEADFLOW_DEBOUNCE_MAX_MS = 600000: each message's execution runs the agent
// flow up to its `debounce` step (token check, lead/clinic/protocol reads, dedupe, lead update, the
// queued answer, the buffer push) and then waits there, durably, for 10 minutes — longer than the
// run — so the agent itself (OpenAI, gateway sends) never runs during the measurement and what is
// measured is ingest only. After its run, the agent executions are counted by status: there must be
// at least as many as 2xx answers LeadFlow gave (warm-up included), or the run fails.
// LeadFlow logs at `info`, its default level (one JSON line per execution drive, to stdout).
// Floor: its own process (`node --import tsx`), same database schema and Redis database; see its
// file comment for what it does per request.
//
// Figures: rps = "queued" answers per second of measurement; p50/p99 = autocannon's latency
// percentiles of the answers received during the measurement, ms (a request still unanswered when
// it ends is not counted: when answers take longer than the measurement, the percentiles understate
// them); ratio = LeadFlow rps / floor rps; server CPU per queued answer = the server process's
// user+system CPU during the measurement / its queued answers, ms (PostgreSQL's and Redis's CPU not
// included; steadier than rps when other work shares the machine). Requests the warm-up left
// unanswered are still being processed by the server at the start of the measurement (as under
// continuous load). Target: LeadFlow >= 70% of the floor's throughput (a miss is reported as
// MISSED, not a failure).
//
// Run: `npx tsx bench/ingest.ts` (after `npm run build`: LeadFlow runs from dist/).
// Environment (integers):
//   BENCH_INGEST_SECONDS          measured seconds per target; default 15 (5 with BENCH_QUICK=1)
//   BENCH_INGEST_WARMUP_SECONDS   uncounted warm-up per target, s; default 3
//   BENCH_CONNECTIONS             concurrent connections; default 50
//   BENCH_INGEST_LEADS            leads the events rotate over; default 5000
//   BENCH_QUICK=1                 short run (see above)
//   BENCH_INGEST_PROFILE_DIR      when set, both servers run with `--cpu-prof` and write their
//                                 .cpuprofile under DIR/leadflow and DIR/floor when they stop
//   BENCH_DATABASE_URL, BENCH_REDIS_URL  servers (bench/lib/services.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { round, table, verdict, type Row } from './lib/stats.js';
import { saveResult } from './lib/results.js';
import { BIN, ROOT, sleep, startServices, type BenchServices } from './lib/services.js';
import { runMain } from './lib/main.js';

const require = createRequire(import.meta.url);

// --- autocannon 8 (no type declarations shipped): the part of its API used here -----------------
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface CannonHistogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
}
interface CannonResult {
  /** Measured time, s. */
  duration: number;
  latency: CannonHistogram;
  requests: CannonHistogram & { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
interface CannonOptions {
  url: string;
  connections: number;
  /** s */
  duration: number;
  /** Per-request timeout, s. */
  timeout: number;
  requests: Array<
    CannonRequest & {
      setupRequest: (req: CannonRequest, context: Record<string, unknown>) => CannonRequest;
      onResponse: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }
  >;
}
type Autocannon = (options: CannonOptions) => Promise<CannonResult>;
const autocannon = require('autocannon') as Autocannon;

// --- settings ------------------------------------------------------------------------------------
function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = envInt('BENCH_INGEST_SECONDS', QUICK ? 5 : 15);
const WARMUP_SECONDS = envInt('BENCH_INGEST_WARMUP_SECONDS', 3);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50);
const LEADS = envInt('BENCH_INGEST_LEADS', 5000);
const PROFILE_DIR = process.env.BENCH_INGEST_PROFILE_DIR || undefined;
/** More errors than this share of the answers fails the run. */
const MAX_ERROR_SHARE = 0.01;
/** LeadFlow's throughput must be at least this share of the floor's. */
const TARGET_RATIO = 0.7;
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
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: '/leadagent',
        headers: { 'content-type': 'application/json', 'x-webhook-secret': 'bench-secret' },
        setupRequest: (req) => ({ ...req, body: nextBody() }),
        onResponse: (status, body) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status === 200 && body === QUEUED) queued++;
          else {
            if (status >= 200 && status < 300) otherBody++;
            if (samples.length < 5) samples.push(`${status} ${body.slice(0, 200)}`);
          }
        },
      },
    ],
  });
  const answers = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = result.non2xx + otherBody + result.errors;
  return {
    seconds: result.duration,
    queued,
    statuses,
    otherBody,
    non2xx: result.non2xx,
    connectionErrors: result.errors,
    errors,
    errorShare: errors / Math.max(1, answers + result.errors),
    rps: queued / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    samples,
  };
}

/** CPU time (user + system) the process used so far, ms, from /proc (clock ticks of 10 ms); NaN without /proc. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Warm-up (uncounted), then the measured load; `cpuMsPerQueued` is the server process's CPU time
 * during the measured load per queued answer, ms (the database's and Redis's CPU not included):
 * steadier than the rates on a machine shared with other work.
 */
async function measure(
  name: string,
  server: Server,
  nextBody: () => string,
): Promise<{ warmup: Load; load: Load; cpuMsPerQueued: number }> {
  const warmup = await fire(server.url, WARMUP_SECONDS, nextBody);
  console.log(`${name}: warm-up ${WARMUP_SECONDS} s, ${warmup.queued} queued, ${warmup.errors} errors; measuring ${SECONDS} s`);
  const cpuBefore = cpuMs(server.child.pid);
  const load = await fire(server.url, SECONDS, nextBody);
  const cpuMsPerQueued = (cpuMs(server.child.pid) - cpuBefore) / Math.max(1, load.queued);
  console.log(`${name}: ${load.queued} queued in ${load.seconds} s, ${load.errors} errors ${JSON.stringify(load.statuses)}`);
  return { warmup, load, cpuMsPerQueued };
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

/** The floor, its own process, on the services' database schema and Redis database. */
function startFloor(services: BenchServices): Promise<Server> {
  const env = {
    ...process.env,
    DATABASE_URL: services.env.DATABASE_URL,
    REDIS_URL: services.env.REDIS_URL,
    LEADFLOW_DEBOUNCE_MAX_MS: DEBOUNCE_MS,
    PORT: '0',
  };
  return spawnServer('the floor', ['--import', 'tsx', ...cpuProfFlags(PROFILE_DIR && join(PROFILE_DIR, 'floor')), FLOOR_FILE], env);
}

/**
 * One `leadflow serve`. Profiled: spawned here with `--cpu-prof` (Node 20 refuses it in
 * NODE_OPTIONS, so services.serve() cannot pass it), with the services' environment.
 */
async function startLeadflow(services: BenchServices): Promise<Server> {
  if (!PROFILE_DIR) {
    const { proc, url } = await services.serve('serve');
    return { child: proc.child, url };
  }
  return spawnServer('leadflow serve', [...cpuProfFlags(join(PROFILE_DIR, 'leadflow')), BIN, 'serve'], { ...process.env, ...services.env });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

// --- main ----------------------------------------------------------------------------------------
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));

async function main(): Promise<void> {
  console.log(`ingest: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per target, ${LEADS} leads`);
  // LOG_LEVEL info: LeadFlow's default, one log line per execution drive (and the line `serve()` waits for).
  const services = await startServices({
    logLevel: 'info',
    env: { LEADFLOW_DEBOUNCE_MS: DEBOUNCE_MS, LEADFLOW_DEBOUNCE_MAX_MS: DEBOUNCE_MS },
  });
  let floor: Server | undefined;
  let serveChild: ChildProcess | undefined;
  try {
    const phones = await services.createLeads(LEADS);
    const nextBody = bodyMaker(services, phones);

    // The floor first, alone; then LeadFlow, alone (the floor is stopped by then).
    floor = await startFloor(services);
    const floorRun = await measure('floor', floor, nextBody);
    await stopProcess(floor.child);

    const serve = await startLeadflow(services);
    serveChild = serve.child;
    const leadflowRun = await measure('leadflow', serve, nextBody);

    // Every accepted request was recorded: executions of the agent flow by status.
    const counts = (await services
      .knex('executions')
      .where({ flow: 'agent' })
      .groupBy('status')
      .select('status')
      .count({ n: '*' })) as Array<{ status: string; n: string | number }>;
    const byStatus = Object.fromEntries(counts.map((r) => [r.status, Number(r.n)]));
    const executions = Object.values(byStatus).reduce((a, b) => a + b, 0);
    const answered2xx = count2xx(leadflowRun.warmup) + count2xx(leadflowRun.load);
    // Graceful stop (hands its work back; writes the CPU profile when asked).
    await stopProcess(serveChild);

    const lf = leadflowRun.load;
    const fl = floorRun.load;
    const ratio = lf.rps / fl.rps;
    const met = ratio >= TARGET_RATIO;
    const rows: Row[] = [
      { measure: 'throughput, queued answers/s', value: fmt(lf.rps), against: fmt(fl.rps), verdict: '' },
      { measure: 'latency p50, ms', value: fmt(lf.p50Ms, 2), against: fmt(fl.p50Ms, 2), verdict: '' },
      { measure: 'latency p99, ms', value: fmt(lf.p99Ms, 2), against: fmt(fl.p99Ms, 2), verdict: '' },
      {
        measure: 'server CPU per queued answer, ms',
        value: fmt(leadflowRun.cpuMsPerQueued, 2),
        against: fmt(floorRun.cpuMsPerQueued, 2),
        verdict: '',
      },
      {
        measure: 'errors (non-2xx, other body, conn.)',
        value: `${lf.errors} (${fmt(lf.errorShare * 100, 2)}%)`,
        against: `${fl.errors} (${fmt(fl.errorShare * 100, 2)}%)`,
        verdict: '',
      },
      { measure: 'throughput ratio leadflow/floor', value: fmt(ratio, 3), against: `>= ${TARGET_RATIO}`, verdict: verdict(met) },
      {
        measure: 'agent executions recorded',
        value: String(executions),
        against: `>= ${answered2xx} (2xx answers)`,
        verdict: executions >= answered2xx ? 'ok' : 'LOST',
      },
    ];
    console.log(`\n${table(rows)}`);
    console.log(`agent executions by status: ${JSON.stringify(byStatus)}`);

    const problems: string[] = [];
    for (const [name, run] of [
      ['floor', floorRun],
      ['leadflow', leadflowRun],
    ] as const) {
      if (run.load.errorShare > MAX_ERROR_SHARE)
        problems.push(
          `${name}: ${fmt(run.load.errorShare * 100, 2)}% errors (more than ${MAX_ERROR_SHARE * 100}%): ${JSON.stringify(run.load.statuses)}, ${run.load.connectionErrors} connection errors; e.g. ${run.load.samples.join(' | ')}`,
        );
      if (run.load.queued === 0)
        problems.push(`${name}: no "queued" answer during the ${SECONDS} s measured (no figures): a longer BENCH_INGEST_SECONDS may help`);
    }
    if (executions < answered2xx) problems.push(`leadflow answered 2xx ${answered2xx} times but recorded ${executions} agent executions`);
    if (problems.length > 0) throw new Error(`the run failed:\n  ${problems.join('\n  ')}`);

    const figures = (run: Load, cpuMsPerQueued: number) => ({
      rps: round(run.rps, 1),
      p50_ms: round(run.p50Ms, 2),
      p99_ms: round(run.p99Ms, 2),
      queued: run.queued,
      errors: run.errors,
      non2xx: run.non2xx,
      other_body_2xx: run.otherBody,
      connection_errors: run.connectionErrors,
      measured_s: round(run.seconds, 2),
      server_cpu_ms_per_queued: round(cpuMsPerQueued, 2),
    });
    saveResult('ingest', {
      settings: {
        endpoint: 'POST /leadagent',
        database: 'postgresql',
        queue: 'redis (bullmq)',
        connections: CONNECTIONS,
        measured_s: SECONDS,
        warmup_s: WARMUP_SECONDS,
        leads: LEADS,
        leadflow: 'one `leadflow serve`, LEADFLOW_DEBOUNCE_MS = LEADFLOW_DEBOUNCE_MAX_MS = 600000 (no agent run during the measurement)',
        floor: 'bench/floor/ingest-floor.ts: express + ajv + token SELECT + lead SELECT + Redis bufferPush',
        order: 'floor, then leadflow',
      },
      figures: {
        leadflow: figures(lf, leadflowRun.cpuMsPerQueued),
        floor: figures(fl, floorRun.cpuMsPerQueued),
        ratio_rps: round(ratio, 3),
        agent_executions: executions,
        agent_executions_by_status: byStatus,
        leadflow_2xx_answers_incl_warmup: answered2xx,
      },
      targets: [
        { target: `LeadFlow >= ${TARGET_RATIO * 100}% of the floor's throughput (POST /leadagent, ${CONNECTIONS} connections)`, met },
      ],
    });
  } finally {
    if (floor) await stopProcess(floor.child, 2_000).catch(() => undefined);
    if (serveChild) await stopProcess(serveChild, 15_000).catch(() => undefined);
    await services.close();
  }
}

runMain(main);
