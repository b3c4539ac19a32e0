// Safe by default: without LEADFLOW_WEBHOOK_SECRET, `serve` and a worker's metrics port listen on
// 127.0.0.1 only and say so; HOST exposes them; `serve` refuses an exposed host without a secret
// (exit 2, naming the variable) unless LEADFLOW_ALLOW_UNAUTHENTICATED=1. Reachability is checked on
// this machine's own non-loopback address (when it has none, those checks are skipped by name).
import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost, listenAddressFromEnv } from '../../cli/listen-address.js';
import { removeScratch, runCli, SCRATCH, spawnLeadflow, startServe, type ServeProcess } from '../helpers/cli.js';
import { redisProblem } from '../helpers/key-values.js';
import { claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';

const FLOWS = ['--flows', 'test/fixtures/http-flows'];

/** The first IPv4 address of this machine that is not loopback; undefined when it has none. */
const OUTSIDE_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
if (!OUTSIDE_ADDRESS)
  console.warn('skipping the reachability checks of listen-address.test.ts: this machine has no non-loopback IPv4 address');
const reachability = OUTSIDE_ADDRESS ? it : it.skip;

/** GET http://host:port/healthz: the status, or the connection error's code (ECONNREFUSED…). */
function probe(host: string, port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/healthz', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

const portOf = (serve: ServeProcess) => Number(new URL(serve.url).port);

afterAll(removeScratch);

describe('listenAddressFromEnv', () => {
  it('listens on loopback without a secret, on every interface with one, and where HOST says', () => {
    expect(listenAddressFromEnv({}, { refuseExposedWithoutSecret: true })).toEqual({
      host: '127.0.0.1',
      exposed: false,
      authenticated: false,
    });
    expect(listenAddressFromEnv({ LEADFLOW_WEBHOOK_SECRET: 's' }, { refuseExposedWithoutSecret: true })).toEqual({
      host: undefined,
      exposed: true,
      authenticated: true,
    });
    expect(listenAddressFromEnv({ HOST: '::1' }, { refuseExposedWithoutSecret: true })).toEqual({
      host: '::1',
      exposed: false,
      authenticated: false,
    });
    expect(listenAddressFromEnv({ HOST: '0.0.0.0', LEADFLOW_WEBHOOK_SECRET: 's' }, { refuseExposedWithoutSecret: true }).exposed).toBe(
      true,
    );
  });

  it('refuses an exposed host without a secret, naming the variable, unless the operator allows it', () => {
    expect(() => listenAddressFromEnv({ HOST: '0.0.0.0' }, { refuseExposedWithoutSecret: true })).toThrow(/LEADFLOW_WEBHOOK_SECRET/);
    expect(() => listenAddressFromEnv({ HOST: '0.0.0.0', LEADFLOW_WEBHOOK_SECRET: '' }, { refuseExposedWithoutSecret: true })).toThrow(
      /LEADFLOW_WEBHOOK_SECRET/,
    );
    expect(listenAddressFromEnv({ HOST: '0.0.0.0', LEADFLOW_ALLOW_UNAUTHENTICATED: '1' }, { refuseExposedWithoutSecret: true })).toEqual({
      host: '0.0.0.0',
      exposed: true,
      authenticated: false,
    });
    // A worker's metrics port (no webhooks) follows HOST without refusing.
    expect(listenAddressFromEnv({ HOST: '0.0.0.0' }, { refuseExposedWithoutSecret: false }).exposed).toBe(true);
    expect(() => listenAddressFromEnv({ LEADFLOW_ALLOW_UNAUTHENTICATED: 'yes' }, { refuseExposedWithoutSecret: true })).toThrow(
      /LEADFLOW_ALLOW_UNAUTHENTICATED must be 1 or 0/,
    );
  });

  it('tells loopback hosts from the others', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.0.2.2', '10.0.0.1', 'example.com', '128.0.0.1', '127.0.0.1.example.com'])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('serve: where it listens', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
  });

  it('without a secret: 127.0.0.1 only, and says so at start', async () => {
    serve = await startServe(FLOWS);
    expect(serve.logs()).toMatch(/listening on port \d+ \(127\.0\.0\.1:\d+, this machine only\)/);
    expect(serve.logs()).toMatch(
      /LEADFLOW_WEBHOOK_SECRET is not set: webhooks accept unauthenticated requests, so they listen on this machine only/,
    );
    expect(await probe('127.0.0.1', portOf(serve))).toBe(200);
    if (OUTSIDE_ADDRESS) expect(await probe(OUTSIDE_ADDRESS, portOf(serve))).toBe('ECONNREFUSED');
  });

  it('refuses to start exposed without a secret: exit 2 naming LEADFLOW_WEBHOOK_SECRET, nothing opened', async () => {
    const dataDir = join(mkdtempSync(join(SCRATCH, 'refused-')), 'data');
    const result = await runCli(['serve', ...FLOWS], { env: { HOST: '0.0.0.0', PORT: '0', LEADFLOW_DATA_DIR: dataDir } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^leadflow: HOST=0\.0\.0\.0 exposes the webhooks .*LEADFLOW_WEBHOOK_SECRET is not set/m);
    expect(result.stderr).toMatch(/LEADFLOW_ALLOW_UNAUTHENTICATED=1/);
    expect(existsSync(join(dataDir, 'leadflow.sqlite'))).toBe(false);
  });

  reachability('HOST=0.0.0.0 with LEADFLOW_ALLOW_UNAUTHENTICATED=1: reachable from other machines, with a warning', async () => {
    serve = await startServe(FLOWS, { HOST: '0.0.0.0', LEADFLOW_ALLOW_UNAUTHENTICATED: '1' });
    expect(serve.logs()).toMatch(/LEADFLOW_ALLOW_UNAUTHENTICATED=1: webhooks on \*:\d+ accept unauthenticated requests/);
    expect(await probe(OUTSIDE_ADDRESS!, portOf(serve))).toBe(200);
  });

  reachability('with a secret and no HOST: every interface, as a deployed server expects', async () => {
    serve = await startServe(FLOWS, { LEADFLOW_WEBHOOK_SECRET: 'topsecret-123' });
    expect(serve.logs()).toMatch(/listening on port \d+ \(\*:\d+\)/);
    expect(serve.logs()).not.toMatch(/LEADFLOW_WEBHOOK_SECRET is not set/);
    expect(await probe(OUTSIDE_ADDRESS!, portOf(serve))).toBe(200);
  });
});

if (redisProblem) console.warn(`skipping "worker metrics port: where it listens": ${redisProblem}`);
(redisProblem ? describe.skip : describe)('worker metrics port: where it listens', () => {
  let redis: RedisDatabase | undefined;
  beforeAll(async () => {
    redis = await claimRedisDatabase('listen-address.test.ts');
  });
  afterAll(async () => {
    await redis?.release();
  });

  async function metricsPort(env: Record<string, string>): Promise<{ port: number; line: string; stop: () => Promise<unknown> }> {
    const proc = spawnLeadflow('worker', ['worker', ...FLOWS, '--metrics-port', '0'], {
      env: {
        REDIS_URL: redis!.url,
        DATABASE_URL: '',
        LEADFLOW_DATA_DIR: mkdtempSync(join(SCRATCH, 'worker-data-')),
        LOG_LEVEL: 'info',
        ...env,
      },
    });
    const line = await proc.waitForLog(/worker metrics on/, 20_000).catch((err: Error) => {
      proc.child.kill('SIGKILL');
      throw err;
    });
    const port = Number(/"port":(\d+)/.exec(line)![1]);
    return {
      port,
      line,
      stop: () => {
        proc.child.kill('SIGTERM');
        return proc.exited;
      },
    };
  }

  it('without a secret: 127.0.0.1 only, and says so; HOST exposes it', async () => {
    const local = await metricsPort({});
    try {
      expect(local.line).toMatch(/at 127\.0\.0\.1:\d+ \(this machine only; HOST exposes them\)/);
      expect(await probe('127.0.0.1', local.port)).toBe(200);
      if (OUTSIDE_ADDRESS) expect(await probe(OUTSIDE_ADDRESS, local.port)).toBe('ECONNREFUSED');
    } finally {
      await local.stop();
    }
    if (!OUTSIDE_ADDRESS) return;
    const exposed = await metricsPort({ HOST: '0.0.0.0' });
    try {
      expect(exposed.line).toMatch(/at \*:\d+"/);
      expect(await probe(OUTSIDE_ADDRESS, exposed.port)).toBe(200);
    } finally {
      await exposed.stop();
    }
  });
});
