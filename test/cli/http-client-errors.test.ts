// Requests Node's HTTP parser refuses before any route sees them (a URL over the header limit, a
// malformed request line) are answered in the JSON error shape with Node's own statuses, on the
// server `serve` and a worker's metrics port listen with (cli/listen-address.ts listenOn), and the
// server keeps answering afterwards.
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorResponse } from '../../cli/http-client-errors.js';
import { listenOn } from '../../cli/listen-address.js';

let server: Server;
let port: number;

beforeAll(async () => {
  ({ server, port } = await listenOn((_req, res) => res.end('ok'), 0, '127.0.0.1'));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `raw` on a new connection and resolves with everything the server wrote until it closed. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve(answer) : reject(err)));
  });
}

/** Status line and parsed JSON body of a raw HTTP/1.1 answer. */
function parse(answer: string): { statusLine: string; contentType: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const lines = head.split('\r\n');
  const contentType =
    lines
      .find((l) => l.toLowerCase().startsWith('content-type:'))
      ?.slice('content-type:'.length)
      .trim() ?? '';
  return { statusLine: lines[0]!, contentType, body: JSON.parse(body) };
}

describe('requests the HTTP parser refuses', () => {
  it('a URL over the 16 KiB header limit: 431 with the JSON error shape', async () => {
    const answer = parse(await exchange(`GET /healthz?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ error: 'request line and headers too large (at most 16 KiB)', details: [] });
  });

  it('a malformed request line: 400 with the JSON error shape', async () => {
    const answer = parse(await exchange('NOT A REQUEST\r\n\r\n'));
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(answer.body).toEqual({ error: 'malformed HTTP request', details: [] });
  });

  it('the server answers the next request as before', async () => {
    const answer = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer.endsWith('ok')).toBe(true);
  });

  it('the response is well formed: Content-Length counts the body in bytes', () => {
    for (const code of [
      'HPE_HEADER_OVERFLOW',
      'HPE_CHUNK_EXTENSIONS_OVERFLOW',
      'ERR_HTTP_REQUEST_TIMEOUT',
      'HPE_INVALID_METHOD',
      undefined,
    ]) {
      const raw = clientErrorResponse(code);
      const [head, body = ''] = raw.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`Content-Length: ${Buffer.byteLength(body)}(\\r\\n|$)`));
      expect(JSON.parse(body)).toEqual({ error: expect.any(String), details: [] });
    }
    expect(clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT')).toMatch(/^HTTP\/1\.1 408 /);
    expect(clientErrorResponse('HPE_CHUNK_EXTENSIONS_OVERFLOW')).toMatch(/^HTTP\/1\.1 413 /);
  });
});
