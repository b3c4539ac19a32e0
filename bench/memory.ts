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
import { sleep, startServices, type BenchServices, type LeadflowProcess } from './lib/services.js';
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

async function main(): Promise<number> {
  console.log(
    `memory: ${MINUTES} min at ${RPS} requests/s (1 in ${FORM_EVERY} an intake form), ${POOL} leads rotating, debounce ${DEBOUNCE_MS} ms, RSS every ${SAMPLE_MS / 1000} s`,
  );
  let services: BenchServices | undefined;
  try {
    services = await startServices({
      logLevel: 'info',
      env: {
        LEADFLOW_DEBOUNCE_MS: String(DEBOUNCE_MS),
        LEADFLOW_DEBOUNCE_MAX_MS: '30000',
        LEADFLOW_TYPING_MIN_MS: '0',
        LEADFLOW_TYPING_MAX_MS: '0',
        LEADFLOW_INTAKE_DELAY_MS: '0',
      },
    });
    const s = services;
    const { proc: serve, url } = await s.serve('serve');
    const worker = await s.worker('worker');
    const procs: LeadflowProcess[] = [serve, worker];
    const pool = await s.createLeads(POOL);
    const dead = () =>
      procs
        .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
        .map((p) => `${p.name} (exit ${p.child.exitCode ?? p.child.signalCode})`);

    await sleep(2000);
    const afterStart = { serve: await serve.rssMb(), worker: await worker.rssMb() };
    console.log(`after start: serve ${afterStart.serve.toFixed(1)} MB, worker ${afterStart.worker.toFixed(1)} MB; load starts`);

    // --- load ---------------------------------------------------------------------------------
    const counts = {
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
    const failures: string[] = [];
    const latencies: number[] = [];
    let inFlight = 0;
    let formSeq = 0;
    const fire = (i: number) => {
      const isForm = i % FORM_EVERY === FORM_EVERY - 1;
      let path: string;
      let body: unknown;
      if (isForm) {
        const phone = `55119${String(50_000_000 + ++formSeq).padStart(8, '0')}`;
        path = '/form/intake';
        body = { nome: `Bench Form ${formSeq}`, telefone: phone, clinica_id: s.clinicId, orcamento: 'Até R$ 3.000' };
        counts.forms++;
      } else {
        path = '/leadagent';
        body = s.leadEvent(pool[counts.messages % pool.length]!, `Oi, mensagem ${counts.messages + 1}: quero saber das lentes`);
        counts.messages++;
      }
      counts.sent++;
      inFlight++;
      const at = Date.now();
      void fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-secret': 'bench-secret' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      })
        .then(async (res) => {
          const text = await res.text();
          latencies.push(Date.now() - at);
          if (res.status === 200 || res.status === 202) {
            counts.answered++;
            if (path === '/leadagent' && res.status === 202) counts.late++;
          } else {
            counts.failed++;
            if (failures.length < 5) failures.push(`${path}: ${res.status} ${text.slice(0, 200)}`);
          }
        })
        .catch((err: unknown) => {
          counts.failed++;
          if (failures.length < 5) failures.push(`${path}: ${(err as Error).message}`);
        })
        .finally(() => inFlight--);
    };
    /** Counts what the fakes recorded since the last call, then clears them (they live in this process). */
    const harvest = () => {
      for (const r of s.gateway.requests.splice(0)) {
        if (r.path !== '/send/text') continue;
        if (String(r.body?.text ?? '').startsWith('🚨')) counts.hunterAlerts++;
        else counts.replies++;
      }
      for (const chat of s.openai.chatRequests()) {
        // An agent run's input quotes the lead (<mensagem_do_lead>); the intake's first message does not.
        if (JSON.stringify(chat?.messages ?? []).includes('<mensagem_do_lead>')) counts.agentRuns++;
        else counts.intakeAi++;
      }
      s.openai.reset();
    };

    const samples: Sample[] = [];
    const started = Date.now();
    let issued = 0;
    let nextSample = SAMPLE_MS;
    let stalledMs = 0;
    while (true) {
      const elapsed = Date.now() - started;
      if (elapsed >= DURATION_MS) break;
      const due = Math.floor((elapsed / 1000) * RPS);
      while (issued < due && inFlight < MAX_IN_FLIGHT) fire(issued++);
      if (issued < due) stalledMs += 20;
      if (elapsed >= nextSample) {
        nextSample += SAMPLE_MS;
        harvest();
        const sample = { t: elapsed, serve: await serve.rssMb(), worker: await worker.rssMb() };
        samples.push(sample);
        console.log(
          `  ${(elapsed / 1000).toFixed(0).padStart(4)} s: sent ${counts.sent} (${counts.forms} forms), answered ${counts.answered}, failed ${counts.failed}, in flight ${inFlight}, agent runs ${counts.agentRuns}, replies ${counts.replies}, RSS serve ${sample.serve.toFixed(1)} MB, worker ${sample.worker.toFixed(1)} MB`,
        );
        const gone = dead();
        if (gone.length > 0)
          throw new Error(
            `leadflow process died: ${gone.join(', ')}\n${procs.map((p) => `--- ${p.name}\n${p.logs().slice(-3000)}`).join('\n')}`,
          );
      }
      await sleep(20);
    }
    const loadMs = Date.now() - started;
    // The last sample at the end of the load, unless one was just taken.
    harvest();
    if (samples.length === 0 || loadMs - samples.at(-1)!.t > SAMPLE_MS / 3)
      samples.push({ t: loadMs, serve: await serve.rssMb(), worker: await worker.rssMb() });
    const inFlightAtEnd = inFlight;
    const gone = dead();

    // --- figures -----------------------------------------------------------------------------
    const warmSample = samples.find((x) => x.t >= WARMUP_MS) ?? samples.at(-1)!;
    const endSample = samples.at(-1)!;
    const secondHalf = samples.filter((x) => x.t >= DURATION_MS / 2);
    const per = (key: 'serve' | 'worker') => {
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
    };
    const serveFig = per('serve');
    const workerFig = per('worker');
    const achievedRps = counts.sent / (loadMs / 1000);
    const errorShare = counts.sent > 0 ? counts.failed / counts.sent : 0;
    const keptUp = counts.agentRuns >= KEPT_UP_SHARE * counts.messages;
    const figures = {
      kept_up: keptUp,
      serve: serveFig,
      worker: workerFig,
      requests_sent: counts.sent,
      forms_sent: counts.forms,
      lead_messages_sent: counts.messages,
      achieved_rps: round(achievedRps, 1),
      answered: counts.answered,
      answered_202_late: counts.late,
      failed: counts.failed,
      in_flight_at_end: inFlightAtEnd,
      agent_runs_seen: counts.agentRuns,
      intake_ai_calls_seen: counts.intakeAi,
      replies_to_leads: counts.replies,
      hunter_alerts: counts.hunterAlerts,
      webhook_p50_ms: percentile(latencies, 50),
      webhook_p99_ms: percentile(latencies, 99),
      samples: samples.map((x) => ({ t_s: round(x.t / 1000, 0), serve_mb: round(x.serve, 1), worker_mb: round(x.worker, 1) })),
    };
    const targetText = (name: string) =>
      `${name} RSS does not grow without bound (second-half slope of the troughs < ${MAX_SLOPE_MB_PER_MIN} MB/min and end < ${MAX_END_OVER_WARM} × after warm-up)`;
    const targets = [
      { target: targetText('serve'), met: serveFig.met },
      { target: targetText('worker'), met: workerFig.met },
    ];
    const mb = (v: number) => `${v.toFixed(1)} MB`;
    const rows = (name: string, f: typeof serveFig) => [
      { measure: `${name} RSS after start`, value: mb(f.after_start_mb), against: '', verdict: '' },
      {
        measure: `${name} RSS after warm-up (${(warmSample.t / 1000).toFixed(0)} s)`,
        value: mb(f.after_warmup_mb),
        against: '',
        verdict: '',
      },
      {
        measure: `${name} RSS at the end (${(endSample.t / 1000).toFixed(0)} s)`,
        value: mb(f.end_mb),
        against: `< ${mb(MAX_END_OVER_WARM * f.after_warmup_mb)} (${MAX_END_OVER_WARM} × warm)`,
        verdict: verdict(f.end_mb < MAX_END_OVER_WARM * f.after_warmup_mb),
      },
      { measure: `${name} RSS max`, value: mb(f.max_mb), against: '', verdict: '' },
      {
        measure: `${name} growth, second half, troughs (${secondHalf.length} samples)`,
        value: `${f.second_half_slope_mb_per_min} MB/min`,
        against: `< ${MAX_SLOPE_MB_PER_MIN} MB/min`,
        verdict: verdict(f.second_half_slope_mb_per_min < MAX_SLOPE_MB_PER_MIN),
      },
      {
        measure: `${name} growth, second half, raw samples`,
        value: `${f.second_half_raw_slope_mb_per_min} MB/min`,
        against: '(sawtooth of GC)',
        verdict: '',
      },
      { measure: `${name}: does not grow without bound`, value: '', against: 'both above', verdict: verdict(f.met) },
    ];
    console.log(
      `\n${table([
        ...rows('serve', serveFig),
        ...rows('worker', workerFig),
        {
          measure: 'requests sent (forms) / rate achieved',
          value: `${counts.sent} (${counts.forms}) / ${achievedRps.toFixed(1)} per s`,
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
          verdict: keptUp ? 'kept up' : 'BACKLOG',
        },
        {
          measure: 'webhook answer p50 / p99',
          value: `${figures.webhook_p50_ms} / ${figures.webhook_p99_ms} ms`,
          against: '',
          verdict: '',
        },
      ])}`,
    );
    if (!keptUp)
      console.log(
        `\nnote: the services answered ${counts.agentRuns} of ${counts.messages} lead messages during the run: they did not keep up with ${RPS} requests/s, and part of any growth may be the backlog.`,
      );
    if (DURATION_MS / 2 < 2 * ENVELOPE_MS)
      console.log(
        `note: a second half of ${(DURATION_MS / 120_000).toFixed(1)} min is shorter than 2 × the ${ENVELOPE_MS / 1000} s envelope: the slope cannot tell a leak from the GC sawtooth here (run ≥ ${Math.ceil((4 * ENVELOPE_MS) / 60_000)} min for that).`,
      );
    if (stalledMs > 1000)
      console.log(`note: the in-flight limit (${MAX_IN_FLIGHT}) held the schedule back for about ${(stalledMs / 1000).toFixed(0)} s.`);

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
      targets,
    });

    if (gone.length > 0 || errorShare > MAX_ERROR_SHARE) {
      if (gone.length > 0) console.error(`\nFAILED: leadflow process died: ${gone.join(', ')}`);
      if (errorShare > MAX_ERROR_SHARE)
        console.error(`\nFAILED: ${counts.failed} of ${counts.sent} requests failed, e.g.:\n  ${failures.join('\n  ')}`);
      return 1;
    }
    return 0;
  } finally {
    await services?.close();
  }
}

runMain(main);
