// What a client gets when Node's HTTP parser refuses its request before any route sees it: the JSON
// error shape of every other answer (`{"error", "details"}`, CONTRACT §4) instead of Node's bare
// status line, with the same statuses Node gives:
//   431  the request line and headers exceed Node's limit (16 KiB unless --max-http-header-size says
//        otherwise), e.g. a URL with a huge query string;
//   413  chunk extensions over Node's limit;
//   408  the request did not arrive whole within the server's requestTimeout;
//   400  any other malformed request.
// Nothing is answered on a socket that can no longer be written, or whose response has begun: it is
// closed. Either way the socket is destroyed, as Node does.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Status, reason phrase and `error` text per parser error code; anything else: 400. */
const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request line and headers too large (at most 16 KiB)'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request not received in time'],
};
const BAD_REQUEST: [number, string, string] = [400, 'Bad Request', 'malformed HTTP request'];

/** The raw HTTP/1.1 response for a parser error `code`: JSON body, connection closed. */
export function clientErrorResponse(code: string | undefined): string {
  const [status, reason, error] = (code && ANSWERS[code]) || BAD_REQUEST;
  const body = JSON.stringify({ error, details: [] });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Answers `server`'s client errors (requests its parser refused) in the JSON error shape. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) socket.write(clientErrorResponse(err.code));
    socket.destroy(err);
  });
}
