// What the HTTP benchmarks (bench/ingest.ts, bench/webhook-floor.ts) share to put load on a server
// they spawned and read what it cost: autocannon as a library (in the benchmark's own process), the
// server's CPU from /proc, a free port, and stopping the server.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

const require = createRequire(import.meta.url);

// --- autocannon 8 (no type declarations shipped): the part of its API used here -----------------
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface CannonResult {
  /** Measured time, s. */
  duration: number;
  latency: { p50: number; p99: number };
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
}
interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  /** Per-request timeout, s. */
  timeout: number;
  requests: Array<
    CannonRequest & {
      setupRequest: (req: CannonRequest) => CannonRequest;
      onResponse: (status: number, body: string) => void;
    }
  >;
}
const autocannon = require('autocannon') as (options: CannonOptions) => Promise<CannonResult>;

/** One load: `connections` kept busy for `seconds` with `POST <path>`, each request's body made by `body()`. */
export interface LoadOptions {
  url: string;
  path: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
  body: () => string;
  /** Told every answer (status and body), in the order they come. */
  onAnswer: (status: number, body: string) => void;
}

/** What autocannon measured of a load: its time, latency percentiles, connection errors and non-2xx answers. */
export interface LoadResult {
  /** Measured time, s. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts (a request unanswered within 30 s). */
  connectionErrors: number;
  non2xx: number;
}

/** Runs one load (LoadOptions) to its end. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: options.path,
        headers: options.headers,
        setupRequest: (req) => ({ ...req, body: options.body() }),
        onResponse: options.onAnswer,
      },
    ],
  });
  return {
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    connectionErrors: result.errors,
    non2xx: result.non2xx,
  };
}

/** CPU time (user + system) the process used so far, ms, from /proc (clock ticks of 10 ms); NaN without /proc. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
