// Memory under steady load: the resident set size (RSS) of `leadflow serve` and of one `leadflow
// worker` (queue mode, PostgreSQL + Redis of bench/lib/services.ts) right after start, and while a
// constant stream of webhooks runs for BENCH_MEMORY_MINUTES, to show that the service processes do
// not grow without bound.
//
// Load (open loop, from this process, loopback): BENCH_MEMORY_RPS requests per second (default 10),
// each due at a fixed time (start + i / RPS) whatever the answers take, with at most
// BENCH_MEMORY_INFLIGHT (default 200) unanswered at once (beyond that the schedule waits: the rate
// achieved is reported). Of every BENCH_MEMORY_FORM_EVERY requests (default 10) one is an intake
// form for a NEW lead (POST /form/intake, generic body {nome, telefone, clinica_id, orcamento},
// X-Webhook-Secret: bench-secret: a lead stored, a first message written by the fake OpenAI and sent,
// the Hunter alerted); the others are WhatsApp messages (POST /leadagent) from a rotating pool of
// BENCH_MEMORY_LEADS existing leads (default 2000), so each is its own burst and a real agent run
// (fake OpenAI, instant) follows LEADFLOW_DEBOUNCE_MS later.
//
// Why 10/s by default (not 20): serve + 1 worker on the 2-core reference machine did about 16 agent
// runs/s when the machine was otherwise idle; at 20/s the requests in flight kept climbing (webhook
// p50 4 s, 89 % of the messages answered by the end of a 2-minute run), and with other work on the
// machine it fell to 3 runs/s (p50 13 s, most /leadagent answers a 202 after the 10 s respond
// timeout). Past capacity the backlog grows without bound and RSS measures the overload, not a leak;
// 10/s leaves headroom. BENCH_MEMORY_RPS=20 reproduces the first setting.
//
// Settings of the spawned processes: LEADFLOW_DEBOUNCE_MS = BENCH_DEBOUNCE_MS (default 1000, so the
// agent runs happen during the test), LEADFLOW_DEBOUNCE_MAX_MS 30000, LEADFLOW_TYPING_* 0,
// LEADFLOW_INTAKE_DELAY_MS 0, LOG_LEVEL info (the product's default), worker concurrency default (16).
//
// Sampling: RSS (from /proc, MB) of both processes after start (before any load), then every
// BENCH_MEMORY_SAMPLE_S seconds (default 15), each printed as a progress line (elapsed, requests
// sent, answered, replies and agent runs seen, RSS). The fake gateway and OpenAI record every request
// in THIS process's memory: they are counted and cleared at each sample (this process is not
// measured).
//
// Figures: RSS after start, after warm-up (the first sample at or after BENCH_MEMORY_WARMUP_S,
// default 60 s), at the end, the maximum, and the growth rate over the second half of the run
// (samples with elapsed ≥ half the duration), MB/min, by least squares, twice:
//   - raw: the samples themselves (reported only). Between two major collections the V8 heap climbs
//     by tens of MB and then drops (at 5 requests/s: about +70 MB over 90 s), a sawtooth whose phase
//     alone moves a raw fit by tens of MB/min either way;
//   - envelope: the rolling minimum of RSS over the last BENCH_MEMORY_ENVELOPE_S (default 120 s,
//     longer than one sawtooth) at each sample, i.e. the troughs after collection. Memory that is
//     never freed (a leak) lifts the troughs at its own rate; garbage does not.
// Target, per process: "RSS does not grow without bound", met when the envelope's second-half slope
// is below 1 MB/min AND the end RSS is below 1.5 × the after-warm-up RSS. A run whose second half is
// shorter than 2 × the envelope window (e.g. BENCH_QUICK's 2 minutes) cannot tell a leak from the
// sawtooth: it says so, and only the end-RSS bound means much there.
// Also reported: whether the services kept up (agent runs seen ≥ 90 % of the lead messages sent; if
// not, the backlog grows in the queue and in the requests serve holds, and growth is the overload,
// not a leak), webhook answer p50/p99 and the rate achieved.
// The run FAILS (exit 1) when a leadflow process dies or more than 1 % of the requests fail (no
// answer, or a status other than 200/202): the figures would not describe a working service.
//
// Environment: BENCH_MEMORY_MINUTES (10; BENCH_QUICK=1: 2), BENCH_MEMORY_RPS (10),
// BENCH_MEMORY_LEADS (2000), BENCH_MEMORY_FORM_EVERY (10), BENCH_MEMORY_INFLIGHT (200),
// BENCH_MEMORY_SAMPLE_S (15), BENCH_MEMORY_WARMUP_S (60), BENCH_MEMORY_ENVELOPE_S (120),
// BENCH_DEBOUNCE_MS (1000).
// Run: `npx tsx bench/memory.ts` (after `npm run build`).
import { saveResult } from './lib/results.js';
import { agentRunEnv, sleep, startServices, type BenchServices, type LeadflowProcess } from './lib/services.js';
import { percentile, round, table, verdict } from './lib/stats.js';
import { runMain } from './lib/main.js';

const numEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
};

const QUICK = process.env.BENCH_QUICK === '1';
const MINUTES = numEnv('BENCH_MEMORY_MINUTES', QUICK ? 2 : 10);
const RPS = numEnv('BENCH_MEMORY_RPS', 10);
const POOL = Math.round(numEnv('BENCH_MEMORY_LEADS', 2000));
const FORM_EVERY = Math.round(numEnv('BENCH_MEMORY_FORM_EVERY', 10));
const MAX_IN_FLIGHT = Math.round(numEnv('BENCH_MEMORY_INFLIGHT', 200));
const SAMPLE_MS = numEnv('BENCH_MEMORY_SAMPLE_S', 15) * 1000;
const WARMUP_MS = numEnv('BENCH_MEMORY_WARMUP_S', 60) * 1000;
const ENVELOPE_MS = numEnv('BENCH_MEMORY_ENVELOPE_S', 120) * 1000;
const DEBOUNCE_MS = Math.round(numEnv('BENCH_DEBOUNCE_MS', 1000));
/** Share of the lead messages that must have had their agent run by the end for "kept up". */
const KEPT_UP_SHARE = 0.9;
const DURATION_MS = MINUTES * 60_000;
/** Target thresholds (see the file comment). */
const MAX_SLOPE_MB_PER_MIN = 1;
const MAX_END_OVER_WARM = 1.5;
/** Share of failed requests above which the run fails. */
const MAX_ERROR_SHARE = 0.01;
const REQUEST_TIMEOUT_MS = 30_000;

interface Sample {
  /** ms since the load started. */
  t: number;
  serve: number;
  worker: number;
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

/** The open-loop load on serve: what it sent, what came back, and what the fakes saw. */
class Load {
  readonly counts = {
    sent: 0,
    forms: 0,
    messages: 0,
    answered: 0,
    late: 0,
    failed: 0,
    replies: 0,
    hunterAlerts: 0,
    agentRuns: 0,
    intakeAi: 0,
  };
  /** A few failed requests, for the report. */
  readonly failures: string[] = [];
  /** Webhook answer times, ms. */
  readonly latencies: number[] = [];
  inFlight = 0;
  private formSeq = 0;

  constructor(
    private readonly s: BenchServices,
    private readonly url: string,
    private readonly pool: string[],
  ) {}

  /** Sends request `i` without waiting for it: every FORM_EVERY-th an intake form for a new lead, the others a message of the next pooled lead. */
  fire(i: number): void {
    const { counts } = this;
    const isForm = i % FORM_EVERY === FORM_EVERY - 1;
    let path: string;
    let body: unknown;
    if (isForm) {
      const phone = `55119${String(50_000_000 + ++this.formSeq).padStart(8, '0')}`;
      path = '/form/intake';
      body = { nome: `Bench Form ${this.formSeq}`, telefone: phone, clinica_id: this.s.clinicId, orcamento: 'Até R$ 3.000' };
      counts.forms++;
    } else {
      path = '/leadagent';
      body = this.s.leadEvent(
        this.pool[counts.messages % this.pool.length]!,
        `Oi, mensagem ${counts.messages + 1}: quero saber das lentes`,
      );
      counts.messages++;
    }
    counts.sent++;
    this.inFlight++;
    void this.post(path, body).finally(() => this.inFlight--);
  }

  private async post(path: string, body: unknown): Promise<void> {
    const at = Date.now();
    try {
      const res = await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-secret': 'bench-secret' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      this.latencies.push(Date.now() - at);
      if (res.status === 200 || res.status === 202) {
        this.counts.answered++;
        if (path === '/leadagent' && res.status === 202) this.counts.late++;
      } else this.fail(`${path}: ${res.status} ${text.slice(0, 200)}`);
    } catch (err) {
      this.fail(`${path}: ${(err as Error).message}`);
    }
  }

  private fail(example: string): void {
    this.counts.failed++;
    if (this.failures.length < 5) this.failures.push(example);
  }

  /** Counts what the fakes recorded since the last call, then clears them (they live in this process). */
  harvest(): void {
    for (const r of this.s.gateway.requests.splice(0)) {
      if (r.path !== '/send/text') continue;
      if (String(r.body?.text ?? '').startsWith('🚨')) this.counts.hunterAlerts++;
      else this.counts.replies++;
    }
    for (const chat of this.s.openai.chatRequests()) {
      // An agent run's input quotes the lead (<mensagem_do_lead>); the intake's first message does not.
      if (JSON.stringify(chat?.messages ?? []).includes('<mensagem_do_lead>')) this.counts.agentRuns++;
      else this.counts.intakeAi++;
    }
    this.s.openai.reset();
  }
}

/** serve and the worker, and the names (with exit codes) of those that died. */
interface Processes {
  serve: LeadflowProcess;
  worker: LeadflowProcess;
  dead(): string[];
}

/** What the load phase gave. */
interface Loaded {
  samples: Sample[];
  loadMs: number;
  inFlightAtEnd: number;
  /** How long the in-flight limit held the schedule back, ms (in 20 ms steps). */
  stalledMs: number;
  /** Processes dead at the end of the load. */
  gone: string[];
}

/** Takes an RSS sample, prints the progress line and throws when a process died. */
async function sample(load: Load, procs: Processes, elapsed: number): Promise<Sample> {
  load.harvest();
  const { counts } = load;
  const taken = { t: elapsed, serve: await procs.serve.rssMb(), worker: await procs.worker.rssMb() };
  console.log(
    `  ${(elapsed / 1000).toFixed(0).padStart(4)} s: sent ${counts.sent} (${counts.forms} forms), answered ${counts.answered}, failed ${counts.failed}, in flight ${load.inFlight}, agent runs ${counts.agentRuns}, replies ${counts.replies}, RSS serve ${taken.serve.toFixed(1)} MB, worker ${taken.worker.toFixed(1)} MB`,
  );
  const gone = procs.dead();
  if (gone.length > 0)
    throw new Error(
      `leadflow process died: ${gone.join(', ')}\n${[procs.serve, procs.worker].map((p) => `--- ${p.name}\n${p.logs().slice(-3000)}`).join('\n')}`,
    );
  return taken;
}

/** RPS requests per second on a fixed schedule for DURATION_MS (at most MAX_IN_FLIGHT unanswered), sampling RSS every SAMPLE_MS. */
async function runLoad(load: Load, procs: Processes): Promise<Loaded> {
  const samples: Sample[] = [];
  const started = Date.now();
  let issued = 0;
  let nextSample = SAMPLE_MS;
  let stalledMs = 0;
  while (true) {
    const elapsed = Date.now() - started;
    if (elapsed >= DURATION_MS) break;
    const due = Math.floor((elapsed / 1000) * RPS);
    while (issued < due && load.inFlight < MAX_IN_FLIGHT) load.fire(issued++);
    if (issued < due) stalledMs += 20;
    if (elapsed >= nextSample) {
      nextSample += SAMPLE_MS;
      samples.push(await sample(load, procs, elapsed));
    }
    await sleep(20);
  }
  const loadMs = Date.now() - started;
  // The last sample at the end of the load, unless one was just taken.
  load.harvest();
  if (samples.length === 0 || loadMs - samples.at(-1)!.t > SAMPLE_MS / 3)
    samples.push({ t: loadMs, serve: await procs.serve.rssMb(), worker: await procs.worker.rssMb() });
  return { samples, loadMs, inFlightAtEnd: load.inFlight, stalledMs, gone: procs.dead() };
}

/** The samples the figures read: after warm-up, the end, and the second half of the run. */
function landmarks(samples: Sample[]) {
  return {
    warmSample: samples.find((x) => x.t >= WARMUP_MS) ?? samples.at(-1)!,
    endSample: samples.at(-1)!,
    secondHalf: samples.filter((x) => x.t >= DURATION_MS / 2),
  };
}

/** One process's figures: RSS after start, after warm-up, at the end, the maximum, the second half's slopes, and the verdict. */
function processFigures(key: 'serve' | 'worker', samples: Sample[], afterStart: { serve: number; worker: number }) {
  const { warmSample, endSample, secondHalf } = landmarks(samples);
  const rawSlope = slope(secondHalf.map((x) => [x.t / 60_000, x[key]]));
  const envelope = (x: Sample) => Math.min(...samples.filter((y) => y.t <= x.t && y.t >= x.t - ENVELOPE_MS).map((y) => y[key]));
  const envelopeSlope = slope(secondHalf.map((x) => [x.t / 60_000, envelope(x)]));
  const max = Math.max(...samples.map((x) => x[key]));
  const met = envelopeSlope < MAX_SLOPE_MB_PER_MIN && endSample[key] < MAX_END_OVER_WARM * warmSample[key];
  return {
    after_start_mb: round(afterStart[key], 1),
    after_warmup_mb: round(warmSample[key], 1),
    end_mb: round(endSample[key], 1),
    max_mb: round(max, 1),
    second_half_slope_mb_per_min: round(envelopeSlope, 2),
    second_half_raw_slope_mb_per_min: round(rawSlope, 2),
    met,
  };
}
type ProcessFigures = ReturnType<typeof processFigures>;

/** The saved figures (see the file comment). */
function figuresOf(load: Load, loaded: Loaded, afterStart: { serve: number; worker: number }) {
  const { counts } = load;
  return {
    kept_up: counts.agentRuns >= KEPT_UP_SHARE * counts.messages,
    serve: processFigures('serve', loaded.samples, afterStart),
    worker: processFigures('worker', loaded.samples, afterStart),
    requests_sent: counts.sent,
    forms_sent: counts.forms,
    lead_messages_sent: counts.messages,
    achieved_rps: round(counts.sent / (loaded.loadMs / 1000), 1),
    answered: counts.answered,
    answered_202_late: counts.late,
    failed: counts.failed,
    in_flight_at_end: loaded.inFlightAtEnd,
    agent_runs_seen: counts.agentRuns,
    intake_ai_calls_seen: counts.intakeAi,
    replies_to_leads: counts.replies,
    hunter_alerts: counts.hunterAlerts,
    webhook_p50_ms: percentile(load.latencies, 50),
    webhook_p99_ms: percentile(load.latencies, 99),
    samples: loaded.samples.map((x) => ({ t_s: round(x.t / 1000, 0), serve_mb: round(x.serve, 1), worker_mb: round(x.worker, 1) })),
  };
}
type Figures = ReturnType<typeof figuresOf>;

const mb = (v: number) => `${v.toFixed(1)} MB`;

/** One process's rows of the table. */
function processRows(name: string, f: ProcessFigures, samples: Sample[]) {
  const { warmSample, endSample, secondHalf } = landmarks(samples);
  const row = (measure: string, value: string, against = '', verdictText = '') => ({ measure, value, against, verdict: verdictText });
  return [
    row(`${name} RSS after start`, mb(f.after_start_mb)),
    row(`${name} RSS after warm-up (${(warmSample.t / 1000).toFixed(0)} s)`, mb(f.after_warmup_mb)),
    row(
      `${name} RSS at the end (${(endSample.t / 1000).toFixed(0)} s)`,
      mb(f.end_mb),
      `< ${mb(MAX_END_OVER_WARM * f.after_warmup_mb)} (${MAX_END_OVER_WARM} × warm)`,
      verdict(f.end_mb < MAX_END_OVER_WARM * f.after_warmup_mb),
    ),
    row(`${name} RSS max`, mb(f.max_mb)),
    row(
      `${name} growth, second half, troughs (${secondHalf.length} samples)`,
      `${f.second_half_slope_mb_per_min} MB/min`,
      `< ${MAX_SLOPE_MB_PER_MIN} MB/min`,
      verdict(f.second_half_slope_mb_per_min < MAX_SLOPE_MB_PER_MIN),
    ),
    row(`${name} growth, second half, raw samples`, `${f.second_half_raw_slope_mb_per_min} MB/min`, '(sawtooth of GC)'),
    row(`${name}: does not grow without bound`, '', 'both above', verdict(f.met)),
  ];
}

/** Share of the requests sent that failed. */
const errorShareOf = ({ counts }: Load) => (counts.sent > 0 ? counts.failed / counts.sent : 0);

/** Prints the table, then the notes: a backlog, a run too short for the envelope, a held-back schedule. */
function report(load: Load, loaded: Loaded, figures: Figures): void {
  const { counts } = load;
  const errorShare = errorShareOf(load);
  console.log(
    `\n${table([
      ...processRows('serve', figures.serve, loaded.samples),
      ...processRows('worker', figures.worker, loaded.samples),
      {
        measure: 'requests sent (forms) / rate achieved',
        value: `${counts.sent} (${counts.forms}) / ${(counts.sent / (loaded.loadMs / 1000)).toFixed(1)} per s`,
        against: `${RPS} per s`,
        verdict: '',
      },
      {
        measure: 'answered / 202 late / failed',
        value: `${counts.answered} / ${counts.late} / ${counts.failed}`,
        against: `failed ≤ ${MAX_ERROR_SHARE * 100} %`,
        verdict: errorShare <= MAX_ERROR_SHARE ? 'ok' : 'FAILED',
      },
      {
        measure: 'agent runs / replies to leads seen',
        value: `${counts.agentRuns} / ${counts.replies}`,
        against: `${counts.messages} lead messages`,
        verdict: figures.kept_up ? 'kept up' : 'BACKLOG',
      },
      { measure: 'webhook answer p50 / p99', value: `${figures.webhook_p50_ms} / ${figures.webhook_p99_ms} ms`, against: '', verdict: '' },
    ])}`,
  );
  if (!figures.kept_up)
    console.log(
      `\nnote: the services answered ${counts.agentRuns} of ${counts.messages} lead messages during the run: they did not keep up with ${RPS} requests/s, and part of any growth may be the backlog.`,
    );
  if (DURATION_MS / 2 < 2 * ENVELOPE_MS)
    console.log(
      `note: a second half of ${(DURATION_MS / 120_000).toFixed(1)} min is shorter than 2 × the ${ENVELOPE_MS / 1000} s envelope: the slope cannot tell a leak from the GC sawtooth here (run ≥ ${Math.ceil((4 * ENVELOPE_MS) / 60_000)} min for that).`,
    );
  if (loaded.stalledMs > 1000)
    console.log(`note: the in-flight limit (${MAX_IN_FLIGHT}) held the schedule back for about ${(loaded.stalledMs / 1000).toFixed(0)} s.`);
}

/** Saves the run to bench/results.json under `memory`. */
function save(figures: Figures): void {
  const targetText = (name: string) =>
    `${name} RSS does not grow without bound (second-half slope of the troughs < ${MAX_SLOPE_MB_PER_MIN} MB/min and end < ${MAX_END_OVER_WARM} × after warm-up)`;
  saveResult('memory', {
    settings: {
      minutes: MINUTES,
      rps: RPS,
      envelope_s: ENVELOPE_MS / 1000,
      form_every: FORM_EVERY,
      lead_pool: POOL,
      max_in_flight: MAX_IN_FLIGHT,
      sample_s: SAMPLE_MS / 1000,
      warmup_s: WARMUP_MS / 1000,
      debounce_ms: DEBOUNCE_MS,
      processes: 'serve (webhooks + jobs) + 1 worker',
      ai: 'fake OpenAI, instant',
      typing_ms: 0,
    },
    figures,
    targets: [
      { target: targetText('serve'), met: figures.serve.met },
      { target: targetText('worker'), met: figures.worker.met },
    ],
  });
}

/** Spawns serve and one worker, creates the lead pool, and waits 2 s for the processes to settle. */
async function startProcesses(s: BenchServices): Promise<{ procs: Processes; url: string; pool: string[] }> {
  const { proc: serve, url } = await s.serve('serve');
  const worker = await s.worker('worker');
  const pool = await s.createLeads(POOL);
  const dead = () =>
    [serve, worker]
      .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
      .map((p) => `${p.name} (exit ${p.child.exitCode ?? p.child.signalCode})`);
  await sleep(2000);
  return { procs: { serve, worker, dead }, url, pool };
}

async function main(): Promise<number> {
  console.log(
    `memory: ${MINUTES} min at ${RPS} requests/s (1 in ${FORM_EVERY} an intake form), ${POOL} leads rotating, debounce ${DEBOUNCE_MS} ms, RSS every ${SAMPLE_MS / 1000} s`,
  );
  let services: BenchServices | undefined;
  try {
    services = await startServices({
      logLevel: 'info',
      env: { ...agentRunEnv(DEBOUNCE_MS, 30_000), LEADFLOW_INTAKE_DELAY_MS: '0' },
    });
    const { procs, url, pool } = await startProcesses(services);
    const afterStart = { serve: await procs.serve.rssMb(), worker: await procs.worker.rssMb() };
    console.log(`after start: serve ${afterStart.serve.toFixed(1)} MB, worker ${afterStart.worker.toFixed(1)} MB; load starts`);
    const load = new Load(services, url, pool);
    const loaded = await runLoad(load, procs);
    const figures = figuresOf(load, loaded, afterStart);
    report(load, loaded, figures);
    save(figures);
    const errorShare = errorShareOf(load);
    if (loaded.gone.length > 0 || errorShare > MAX_ERROR_SHARE) {
      if (loaded.gone.length > 0) console.error(`\nFAILED: leadflow process died: ${loaded.gone.join(', ')}`);
      if (errorShare > MAX_ERROR_SHARE)
        console.error(`\nFAILED: ${load.counts.failed} of ${load.counts.sent} requests failed, e.g.:\n  ${load.failures.join('\n  ')}`);
      return 1;
    }
    return 0;
  } finally {
    await services?.close();
  }
}

runMain(main);
