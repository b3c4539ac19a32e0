// Where `serve` (and a worker's metrics port) listens, from the environment, and whether that is
// allowed. Safe by default: without LEADFLOW_WEBHOOK_SECRET nothing outside this machine can reach
// the webhooks (loopback only), so an unconfigured server cannot be made to write to any phone.
//   HOST set                     listen there (`0.0.0.0` or `::`: every interface; a name or an
//                                address: that one).
//   HOST unset, secret set       every interface (what a deployed server with a secret expects).
//   HOST unset, no secret        127.0.0.1 only.
// A host that is not loopback without a secret is refused (UsageError, exit 2, naming
// LEADFLOW_WEBHOOK_SECRET) unless LEADFLOW_ALLOW_UNAUTHENTICATED=1 says the operator means it.
import { createServer, type RequestListener, type Server } from 'node:http';
import { answerClientErrors } from './http-client-errors.js';
import { UsageError } from './usage-error.js';

/** The loopback address listened on when nothing says otherwise and no secret is set. */
export const LOOPBACK_HOST = '127.0.0.1';

/** Where to listen and what that exposes, as listenAddressFromEnv decides it from HOST and the secret. */
export interface ListenAddress {
  /** What to pass to `listen`; undefined: every interface (Node's default, IPv6 and IPv4). */
  host: string | undefined;
  /** True when machines other than this one may reach the port. */
  exposed: boolean;
  /** True when LEADFLOW_WEBHOOK_SECRET is set (non-empty). */
  authenticated: boolean;
}

/** True for names and addresses of this machine only: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** LEADFLOW_ALLOW_UNAUTHENTICATED: `1` allows, unset, empty or `0` does not; anything else is refused. */
function allowUnauthenticated(env: NodeJS.ProcessEnv): boolean {
  const raw = (env.LEADFLOW_ALLOW_UNAUTHENTICATED ?? '').trim();
  if (raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new UsageError(`LEADFLOW_ALLOW_UNAUTHENTICATED must be 1 or 0, got "${raw}"`);
}

/**
 * The address a process listens on. `refuseExposedWithoutSecret`: serve (it carries the webhooks)
 * refuses an exposed host without a secret; a worker's metrics port (no webhooks) only follows the
 * same default.
 */
export function listenAddressFromEnv(env: NodeJS.ProcessEnv, options: { refuseExposedWithoutSecret: boolean }): ListenAddress {
  const authenticated = Boolean(env.LEADFLOW_WEBHOOK_SECRET);
  const hostText = (env.HOST ?? '').trim();
  const allowed = allowUnauthenticated(env);
  if (hostText === '') {
    return authenticated ? { host: undefined, exposed: true, authenticated } : { host: LOOPBACK_HOST, exposed: false, authenticated };
  }
  const exposed = !isLoopbackHost(hostText);
  if (exposed && !authenticated && options.refuseExposedWithoutSecret && !allowed) {
    throw new UsageError(
      `HOST=${hostText} exposes the webhooks beyond this machine, but LEADFLOW_WEBHOOK_SECRET is not set: ` +
        'set LEADFLOW_WEBHOOK_SECRET (or, if unauthenticated webhooks are really meant, LEADFLOW_ALLOW_UNAUTHENTICATED=1)',
    );
  }
  return { host: hostText, exposed, authenticated };
}

/** How the address reads in the start line: `127.0.0.1:3000`, `[::1]:3000`, `*:3000`. */
export function describeListen(host: string | undefined, port: number): string {
  if (host === undefined || host === '0.0.0.0' || host === '::') return `*:${port}`;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Serves `handler` (an express app) on `port` at `host` (undefined: every interface); resolves once it
 * listens, with the server and the port bound (`0` picks a free one), or rejects with the listen error
 * (e.g. EADDRINUSE). Requests Node's parser refuses are answered in the JSON error shape
 * (http-client-errors.ts).
 */
export function listenOn(handler: RequestListener, port: number, host: string | undefined): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    answerClientErrors(server);
    server.once('error', reject);
    server.listen({ port, host }, () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
  });
}
