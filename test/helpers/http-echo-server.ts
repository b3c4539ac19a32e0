// A loopback HTTP server for tests: records every request (method, path, query, headers, body,
// arrival time), tracks how many requests are in flight at once, and answers with whatever the
// test's `reply` function returns (by default: an echo of the request as JSON).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  json: unknown;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as text/plain (unless headers say otherwise). */
  text?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type ReplyFn = (req: ReceivedRequest, index: number) => Reply | Promise<Reply>;

export interface TestServer {
  url: string;
  requests: ReceivedRequest[];
  /** Most requests being handled at the same time so far. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

const servers = new Set<Server>();

const echo: ReplyFn = (req) => ({
  json: { method: req.method, path: req.path, query: req.query, headers: req.headers, body: req.json ?? null },
});

export async function startServer(reply: ReplyFn = echo): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const at = Date.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        text,
        json,
        at,
      };
      const index = requests.length;
      requests.push(received);
      try {
        const r = await reply(received, index);
        if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
        const headers: Record<string, string> = { ...(r.headers ?? {}) };
        let payload = '';
        if (r.json !== undefined) {
          headers['content-type'] ??= 'application/json';
          payload = JSON.stringify(r.json);
        } else if (r.text !== undefined) {
          headers['content-type'] ??= 'text/plain; charset=utf-8';
          payload = r.text;
        }
        if (!res.destroyed) res.writeHead(r.status ?? 200, headers).end(payload);
      } catch (err) {
        if (!res.destroyed) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      } finally {
        inFlight--;
      }
    });
  });
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  servers.delete(server);
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Closes every server started since the last call (use in afterEach). */
export async function closeServers(): Promise<void> {
  await Promise.all([...servers].map(closeServer));
}
