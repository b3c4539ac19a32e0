// Grouping at scale: BENCH_LEADS leads (default 1,000) each send BENCH_MESSAGES WhatsApp messages
// (default 5) in a quick burst, and every burst must become exactly ONE agent run whose input holds
// that lead's messages, each once, in the order sent — and exactly one reply to the lead.
//
// Topology (queue mode, PostgreSQL + Redis of bench/lib/services.ts): one `leadflow serve` receives
// every webhook (POST /leadagent) AND takes jobs from the shared queue like any worker (serve always
// works the queue in queue mode), plus BENCH_WORKERS `leadflow worker` processes (default 2). Each
// process drives up to LEADFLOW_WORKER_CONCURRENCY executions at once (product default 16).
//
// Settings of the spawned processes, and why:
//   LEADFLOW_DEBOUNCE_MS      BENCH_DEBOUNCE_MS, default 8000 (the production default): the quiet period
//                             that closes a burst, counted between two messages of a lead as the
//                             server takes them in — the 50–150 ms pause PLUS the next webhook's
//                             answer time, since the sender waits for each answer. On this 2-core
//                             machine, with 50 leads sending at once, answers took p50 2.8 s / p99 9 s
//                             (the services saturate the CPU at about 14 messages/s), so a 3 s window
//                             split half the bursts because their messages really did arrive more than
//                             3 s apart; 8 s, with 25 leads at once, measures the grouping and not
//                             the overload, and costs only 5 s more of drain.
//   LEADFLOW_DEBOUNCE_MAX_MS  30000 (the production default): the longest a burst is held. It must be
//                             well above a burst's span (4 × (150 ms + answer time) + the quiet
//                             period) or the max hold would cut a slow burst in two; 30 s also caps
//                             how long a lead waits for its answer, as in production.
//   LEADFLOW_TYPING_MIN/MAX_MS 0: no simulated typing (it would only add a constant to the drain).
//   LOG_LEVEL                 info, the product's default (one line per execution drive).
//   Fake OpenAI: instant default reply ("Olá! Como posso ajudar?", one paragraph = one message sent).
//
// Load: leads are taken from a queue by BENCH_CONCURRENCY senders (default 25); a sender posts one
// lead's messages one after another (each waits for the previous webhook answer, then 50–150 ms), so
// at most BENCH_CONCURRENCY requests are in flight and a lead's messages arrive in order. Message k
// of lead i reads "lead-<i> m<k>". Then it waits until every lead got a reply at the fake gateway,
// and DEBOUNCE_MS + 2 s more to catch late duplicates; the whole run (sending + waiting) is bounded by
// BENCH_GROUPING_TIMEOUT_S (default 600).
//
// Checks (the fake OpenAI's chat requests are the agent runs; the last user message of each is the
// run's input, "<mensagem_do_lead>\n…lines…\n</mensagem_do_lead>"):
//   correctness — the run FAILS (exit 1), with examples, on any of: a message in no run (lost) or in
//   two (duplicated); a lead's messages out of order (within a run or across its runs); a run mixing
//   leads or holding an unknown line; a lead whose replies ≠ its runs (a run without its reply, or an
//   extra reply); a burst split into several runs although its messages' webhook answers were all
//   less than DEBOUNCE_MS / 2 apart (the split cannot be blamed on the load); a webhook not answered
//   200 {"status":"queued"}.
//   targets — reported met / MISSED (not a failure): exactly BENCH_LEADS agent runs; each run with
//   its lead's BENCH_MESSAGES messages in order. A burst split because the machine answered a
//   webhook slower than about half the quiet window misses them without being a correctness failure.
// Figures: send time (first post → last webhook answer), drain (last answer → last reply at the
// gateway; includes the DEBOUNCE_MS quiet period of the last bursts, so its floor is DEBOUNCE_MS),
// total (first post → last reply), webhook answer latency p50/p99, agent runs finished per process
// (from each process's /metrics), replies per lead.
//
// Environment: BENCH_LEADS (1000), BENCH_MESSAGES (5), BENCH_CONCURRENCY (25), BENCH_WORKERS (2),
// BENCH_DEBOUNCE_MS (8000), BENCH_GROUPING_TIMEOUT_S (600), BENCH_QUICK=1 (100 leads unless
// BENCH_LEADS is set). Run: `npx tsx bench/grouping.ts` (after `npm run build`).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { saveResult } from './lib/results.js';
import { agentRunEnv, sleep, startServices, type BenchServices, type LeadflowProcess } from './lib/services.js';
import { percentile, round, table, verdict } from './lib/stats.js';
import { runMain } from './lib/main.js';

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
};

const QUICK = process.env.BENCH_QUICK === '1';
const LEADS = intEnv('BENCH_LEADS', QUICK ? 100 : 1000);
const MESSAGES = intEnv('BENCH_MESSAGES', 5);
const CONCURRENCY = Math.max(1, intEnv('BENCH_CONCURRENCY', 25));
const WORKERS = intEnv('BENCH_WORKERS', 2);
const DEBOUNCE_MS = intEnv('BENCH_DEBOUNCE_MS', 8000);
const DEBOUNCE_MAX_MS = 30_000;
const TIMEOUT_MS = intEnv('BENCH_GROUPING_TIMEOUT_S', 600) * 1000;
/** Pause between two messages of one lead, after the previous webhook answer, ms. */
const GAP_MIN_MS = 50;
const GAP_MAX_MS = 150;
/** One webhook request's own limit, ms (the flow answers within 10 s by contract). */
const REQUEST_TIMEOUT_MS = 30_000;
/** How many examples of each kind of violation are printed. */
const EXAMPLES = 5;

const messageText = (lead: number, k: number) => `lead-${String(lead).padStart(4, '0')} m${k}`;
const LINE = /^lead-(\d+) m(\d+)$/;

interface Post {
  lead: number;
  k: number;
  sentAt: number;
  answeredAt: number;
  status: number;
  body: string;
}

/** A free loopback port (for a worker's LEADFLOW_METRICS_PORT). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** leadflow_executions_total{flow="agent",status="success"} of one process: the agent runs it finished to the end. */
async function agentRunsFinished(metricsUrl: string): Promise<number> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('leadflow_executions_total{') && l.includes('flow="agent"') && l.includes('status="success"'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  } catch {
    return Number.NaN;
  }
}

/** The run's input: the lines between the <mensagem_do_lead> tags of the last user message. */
function runInput(chat: any): string[] {
  const last = (chat?.messages ?? []).filter((m: any) => m.role === 'user').at(-1);
  const content: string = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  const inner = /<mensagem_do_lead>\n([\s\S]*?)\n<\/mensagem_do_lead>/.exec(content)?.[1] ?? content;
  return inner.split('\n').filter((l) => l.trim() !== '');
}

/** The spawned processes: serve (webhooks and jobs) and the workers, with where each serves its /metrics. */
interface Processes {
  url: string;
  all: LeadflowProcess[];
  metricsUrls: Array<{ name: string; url: string }>;
}

/** Spawns serve and WORKERS workers (each with a metrics port of its own). */
async function startProcesses(s: BenchServices): Promise<Processes> {
  const { url, proc: serveProc } = await s.serve('serve');
  const all = [serveProc];
  const metricsUrls = [{ name: 'serve', url: `${url}/metrics` }];
  for (let w = 1; w <= WORKERS; w++) {
    const port = await freePort();
    all.push(await s.worker(`worker-${w}`, { LEADFLOW_METRICS_PORT: String(port) }));
    metricsUrls.push({ name: `worker-${w}`, url: `http://127.0.0.1:${port}/metrics` });
  }
  return { url, all, metricsUrls };
}

/** The webhooks answered so far, and how many leads sent all their messages. */
interface Sending {
  posts: Post[];
  leadsDone: number;
}

/** Posts message `k` of `lead` and records when it was answered, and how (status 0: the request failed). */
async function postMessage(s: BenchServices, url: string, phones: string[], lead: number, k: number): Promise<Post> {
  const sentAt = Date.now();
  let status = 0;
  let body = '';
  try {
    const res = await fetch(`${url}/leadagent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-secret': 'bench-secret' },
      body: JSON.stringify(s.leadEvent(phones[lead]!, messageText(lead, k))),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    status = res.status;
    body = await res.text();
  } catch (err) {
    body = `request failed: ${(err as Error).message}`;
  }
  return { lead, k, sentAt, answeredAt: Date.now(), status, body };
}

/** CONCURRENCY senders, each taking the next lead and posting its messages in order (GAP_MIN_MS–GAP_MAX_MS apart), until `deadline`. */
async function sendAll(s: BenchServices, url: string, phones: string[], deadline: number, sending: Sending): Promise<void> {
  let nextLead = 0;
  const sender = async () => {
    while (nextLead < LEADS && Date.now() < deadline) {
      const lead = nextLead++;
      for (let k = 1; k <= MESSAGES; k++) {
        if (k > 1) await sleep(GAP_MIN_MS + Math.random() * (GAP_MAX_MS - GAP_MIN_MS));
        sending.posts.push(await postMessage(s, url, phones, lead, k));
      }
      sending.leadsDone++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, LEADS) }, sender));
}

/** Waits until every lead got a reply (then DEBOUNCE_MS + 2 s more for late duplicates) or `deadline`; true when it timed out. */
async function waitForReplies(s: BenchServices, leadOfPhone: Map<string, number>, deadline: number): Promise<boolean> {
  const repliedLeads = () => {
    const seen = new Set<number>();
    for (const r of s.gateway.requests) if (r.path === '/send/text' && r.status === 200) seen.add(leadOfPhone.get(r.body?.number) ?? -1);
    seen.delete(-1);
    return seen.size;
  };
  while (repliedLeads() < LEADS) {
    if (Date.now() > deadline) return true;
    await sleep(250);
  }
  await sleep(DEBOUNCE_MS + 2000);
  return false;
}

/** Correctness violations by kind, each with its examples. */
type Violations = Record<string, string[]>;
const violate = (violations: Violations, kind: string, example: string) => {
  violations[kind] ??= [];
  violations[kind].push(example);
};

/** Each lead's agent runs (the message numbers of each run's input); runs with an unknown line or mixing leads are violations. */
function runsByLead(chats: unknown[], violations: Violations): Map<number, number[][]> {
  const runsOf = new Map<number, number[][]>();
  for (const [i, chat] of chats.entries()) {
    const lines = runInput(chat);
    const parsed = lines.map((l) => LINE.exec(l.trim()));
    if (parsed.some((m) => !m)) {
      violate(violations, 'run with an unknown line', `run #${i}: ${JSON.stringify(lines).slice(0, 200)}`);
      continue;
    }
    const leads = new Set(parsed.map((m) => Number(m![1])));
    if (leads.size !== 1) {
      violate(violations, 'run mixing leads', `run #${i}: ${lines.join(' | ')}`);
      continue;
    }
    const lead = [...leads][0]!;
    const list = runsOf.get(lead) ?? [];
    list.push(parsed.map((m) => Number(m![2])));
    runsOf.set(lead, list);
  }
  return runsOf;
}

/** Replies sent to each lead, and when each reached the gateway; a reply to an unknown number is a violation. */
function repliesByLead(s: BenchServices, leadOfPhone: Map<string, number>, violations: Violations) {
  const repliesOf = new Map<number, number>();
  const replyTimes: number[] = [];
  for (const r of s.gateway.requests) {
    if (r.path !== '/send/text' || r.status !== 200) continue;
    const lead = leadOfPhone.get(r.body?.number);
    if (lead === undefined) {
      violate(violations, 'reply to an unknown number', `${r.body?.number}: ${r.body?.text}`);
      continue;
    }
    repliesOf.set(lead, (repliesOf.get(lead) ?? 0) + 1);
    replyTimes.push(r.at);
  }
  return { repliesOf, replyTimes };
}

/** What the per-lead checks found besides the violations. */
interface LeadChecks {
  /** Leads with exactly one run holding all their messages, each once, in order. */
  runsExact: number;
  /** Bursts split while a gap between their webhook answers reached DEBOUNCE_MS / 2 (blamed on the load). */
  splitByLoad: number;
  splitExamples: string[];
}

/** Checks every lead: messages lost, duplicated or out of order; replies ≠ runs; a burst split without cause. */
function checkLeads(
  phones: string[],
  posts: Post[],
  runsOf: Map<number, number[][]>,
  repliesOf: Map<number, number>,
  violations: Violations,
): LeadChecks {
  const answersOf = new Map<number, number[]>();
  for (const p of posts) (answersOf.get(p.lead) ?? answersOf.set(p.lead, []).get(p.lead)!).push(p.answeredAt);
  const expected = Array.from({ length: MESSAGES }, (_, i) => i + 1);
  const checks: LeadChecks = { runsExact: 0, splitByLoad: 0, splitExamples: [] };
  for (let lead = 0; lead < LEADS; lead++) {
    const runs = runsOf.get(lead) ?? [];
    const all = runs.flat();
    const replies = repliesOf.get(lead) ?? 0;
    const describe = () => `lead-${lead} (${phones[lead]}): runs ${JSON.stringify(runs)}, replies ${replies}`;
    const missing = expected.filter((k) => !all.includes(k));
    const duplicated = expected.filter((k) => all.filter((x) => x === k).length > 1);
    if (missing.length > 0) violate(violations, 'message lost (in no agent run)', `${describe()}; missing m${missing.join(', m')}`);
    if (duplicated.length > 0)
      violate(violations, 'message duplicated (in two agent runs or twice in one)', `${describe()}; twice: m${duplicated.join(', m')}`);
    const inOrder = all.every((k, i) => i === 0 || k > all[i - 1]!);
    if (!inOrder) violate(violations, 'messages out of order', describe());
    if (replies !== runs.length)
      violate(violations, replies === 0 ? 'lead without a reply' : 'replies ≠ agent runs for a lead', describe());
    if (runs.length === 1 && inOrder && missing.length === 0 && duplicated.length === 0) checks.runsExact++;
    if (runs.length > 1) checkSplit(answersOf.get(lead) ?? [], describe, violations, checks);
  }
  return checks;
}

/** A lead's burst split in several runs: a violation when its webhook answers were all less than DEBOUNCE_MS / 2 apart, else counted as split by load. */
function checkSplit(answered: number[], describe: () => string, violations: Violations, checks: LeadChecks): void {
  answered.sort((a, b) => a - b);
  const maxGap = Math.max(0, ...answered.map((t, i) => (i === 0 ? 0 : t - answered[i - 1]!)));
  if (maxGap < DEBOUNCE_MS / 2)
    violate(
      violations,
      'burst split although its messages came well within the quiet window',
      `${describe()}; largest gap between webhook answers ${maxGap} ms`,
    );
  else {
    checks.splitByLoad++;
    if (checks.splitExamples.length < EXAMPLES)
      checks.splitExamples.push(`${describe()}; largest gap between webhook answers ${maxGap} ms`);
  }
}

/** Everything the run observed, for the figures. */
interface Observed {
  posts: Post[];
  badPosts: Post[];
  chats: unknown[];
  checks: LeadChecks;
  repliesOf: Map<number, number>;
  replyTimes: number[];
  started: number;
  sendEnd: number;
  perProcess: Array<{ name: string; runs: number }>;
  timedOut: boolean;
  violations: Violations;
}

/** The saved figures (see the file comment). */
function figuresOf(o: Observed) {
  const latencies = o.posts.map((p) => p.answeredAt - p.sentAt);
  const lastReply = o.replyTimes.length ? Math.max(...o.replyTimes) : Number.NaN;
  const sendMs = o.sendEnd - o.started;
  return {
    agent_runs: o.chats.length,
    leads_with_exactly_one_run_holding_all_messages_in_order: o.checks.runsExact,
    leads_with_exactly_one_reply: [...Array(LEADS).keys()].filter((l) => o.repliesOf.get(l) === 1).length,
    bursts_split_by_load: o.checks.splitByLoad,
    webhook_answers: o.posts.length,
    webhook_errors: o.badPosts.length,
    send_ms: sendMs,
    drain_ms: lastReply - o.sendEnd,
    total_ms: lastReply - o.started,
    messages_per_s_accepted: round((o.posts.length / sendMs) * 1000, 1),
    webhook_p50_ms: percentile(latencies, 50),
    webhook_p99_ms: percentile(latencies, 99),
    webhook_max_ms: Math.max(...latencies),
    agent_runs_finished_by_process: Object.fromEntries(o.perProcess.map((p) => [p.name, p.runs])),
    timed_out: o.timedOut,
    violations: Object.fromEntries(Object.entries(o.violations).map(([k, v]) => [k, v.length])),
  };
}
type Figures = ReturnType<typeof figuresOf>;

/** Prints the figures and checks as a table, then examples of bursts split by load. */
function report(o: Observed, figures: Figures): void {
  const s1 = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a');
  const row = (measure: string, value: string, against = '', verdictText = '') => ({ measure, value, against, verdict: verdictText });
  const oneReply = figures.leads_with_exactly_one_reply;
  const { runsExact, splitByLoad, splitExamples } = o.checks;
  console.log(
    `\n${table([
      row('agent runs (fake OpenAI chat requests)', String(o.chats.length), `exactly ${LEADS}`, verdict(o.chats.length === LEADS)),
      row(`runs holding their lead's ${MESSAGES} messages in order`, `${runsExact} leads`, `all ${LEADS}`, verdict(runsExact === LEADS)),
      row('leads with exactly 1 reply', String(oneReply), `all ${LEADS}`, verdict(oneReply === LEADS)),
      row('bursts split by load (gap ≥ quiet/2)', String(splitByLoad), '0', splitByLoad === 0 ? 'ok' : 'see below'),
      row(
        'correctness violations',
        String(Object.values(o.violations).reduce((a, v) => a + v.length, 0)),
        '0',
        Object.keys(o.violations).length === 0 ? 'ok' : 'FAILED',
      ),
      row(`send ${o.posts.length} messages (first post → last answer)`, s1(figures.send_ms)),
      row('drain (last answer → last reply)', s1(figures.drain_ms), `floor ${s1(DEBOUNCE_MS)} (quiet window)`),
      row('total (first post → last reply)', s1(figures.total_ms)),
      row('messages accepted per second', String(figures.messages_per_s_accepted)),
      row('webhook answer p50 / p99', `${figures.webhook_p50_ms} / ${figures.webhook_p99_ms} ms`),
      row('agent runs finished per process', o.perProcess.map((p) => `${p.name} ${p.runs}`).join(', ')),
    ])}`,
  );
  if (splitExamples.length > 0) console.log(`\nbursts split by load (${splitByLoad}), e.g.:\n  ${splitExamples.join('\n  ')}`);
}

/** Saves the run to bench/results.json under `grouping`. */
function save(o: Observed, figures: Figures): void {
  saveResult('grouping', {
    settings: {
      leads: LEADS,
      messages_per_lead: MESSAGES,
      gap_ms: [GAP_MIN_MS, GAP_MAX_MS],
      leads_sending_at_once: CONCURRENCY,
      processes: `serve (webhooks + jobs) + ${WORKERS} workers`,
      debounce_ms: DEBOUNCE_MS,
      debounce_max_ms: DEBOUNCE_MAX_MS,
      typing_ms: 0,
      ai: 'fake OpenAI, instant',
      timeout_s: TIMEOUT_MS / 1000,
    },
    figures,
    targets: [
      { target: `exactly ${LEADS.toLocaleString('en-US')} agent runs`, met: o.chats.length === LEADS },
      { target: `each with its ${MESSAGES} messages in order`, met: o.checks.runsExact === LEADS },
    ],
  });
}

/** Sends every burst, waits for the replies, reads each process's figures and checks what arrived. */
async function run(s: BenchServices): Promise<Observed> {
  const processes = await startProcesses(s);
  const phones = await s.createLeads(LEADS);
  const leadOfPhone = new Map(phones.map((p, i) => [p, i]));
  console.log(`services up; ${LEADS} leads created; sending…`);
  const sending: Sending = { posts: [], leadsDone: 0 };
  const started = Date.now();
  const deadline = started + TIMEOUT_MS;
  const progress = setInterval(() => {
    console.log(
      `  ${((Date.now() - started) / 1000).toFixed(0)} s: ${sending.posts.length}/${LEADS * MESSAGES} webhooks answered, ${sending.leadsDone}/${LEADS} leads sent, ${s.openai.chatRequests().length} agent runs, ${s.gateway.requests.length} gateway sends`,
    );
  }, 10_000);
  try {
    await sendAll(s, processes.url, phones, deadline, sending);
    const { posts } = sending;
    const sendEnd = Math.max(...posts.map((p) => p.answeredAt));
    const timedOut = await waitForReplies(s, leadOfPhone, deadline);
    clearInterval(progress);
    const perProcess = await Promise.all(processes.metricsUrls.map(async (m) => ({ name: m.name, runs: await agentRunsFinished(m.url) })));
    const dead = processes.all.filter((w) => w.child.exitCode !== null || w.child.signalCode !== null).map((w) => w.name);

    const violations: Violations = {};
    const badPosts = posts.filter((p) => p.status !== 200 || !/"status"\s*:\s*"queued"/.test(p.body));
    for (const p of badPosts)
      violate(violations, 'webhook not answered 200 queued', `lead-${p.lead} m${p.k}: ${p.status} ${p.body.slice(0, 200)}`);
    if (posts.length < LEADS * MESSAGES)
      violate(violations, 'messages not sent (timeout while sending)', `${LEADS * MESSAGES - posts.length} of ${LEADS * MESSAGES}`);
    const chats = s.openai.chatRequests();
    const runsOf = runsByLead(chats, violations);
    const { repliesOf, replyTimes } = repliesByLead(s, leadOfPhone, violations);
    const checks = checkLeads(phones, posts, runsOf, repliesOf, violations);
    if (dead.length > 0) violate(violations, 'leadflow process died', dead.join(', '));
    return { posts, badPosts, chats, checks, repliesOf, replyTimes, started, sendEnd, perProcess, timedOut, violations };
  } finally {
    clearInterval(progress);
  }
}

async function main(): Promise<number> {
  if (LEADS < 1 || MESSAGES < 1) throw new Error('BENCH_LEADS and BENCH_MESSAGES must be at least 1');
  console.log(
    `grouping: ${LEADS} leads × ${MESSAGES} messages, ${CONCURRENCY} leads sending at once, serve + ${WORKERS} workers, debounce ${DEBOUNCE_MS} ms (max ${DEBOUNCE_MAX_MS} ms), timeout ${TIMEOUT_MS / 1000} s`,
  );
  let services: BenchServices | undefined;
  try {
    // LOG_LEVEL info, the product's default (and the level at which serve and worker say they are up).
    services = await startServices({
      logLevel: 'info',
      env: agentRunEnv(DEBOUNCE_MS, DEBOUNCE_MAX_MS),
    });
    const observed = await run(services);
    const figures = figuresOf(observed);
    report(observed, figures);
    save(observed, figures);
    if (Object.keys(observed.violations).length > 0) {
      console.error('\nCORRECTNESS FAILURES (exactly-once / ordering):');
      for (const [kind, list] of Object.entries(observed.violations))
        console.error(`  ${kind}: ${list.length}\n    ${list.slice(0, EXAMPLES).join('\n    ')}`);
      return 1;
    }
    return 0;
  } finally {
    await services?.close();
  }
}

runMain(main);
