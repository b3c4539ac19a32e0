// A fake Anthropic API as a real HTTP server on 127.0.0.1 (port 0), for the real
// `@anthropic-ai/sdk` client via `baseURL: fake.baseURL` (no /v1; the SDK adds it).
// Endpoint: POST /v1/messages (text, tool_use blocks, empty, errors). Any other path answers 404
// and is recorded. Accepts `authorization: Bearer` (SDK 1.x) or `x-api-key` (0.x); a request with
// neither answers 401. Like the real API it answers 400 to a conversation whose first turn is not
// `user`, to two turns of the same role in a row (as API versions before the automatic merge did),
// to empty text blocks, and to tool_use blocks without matching tool_result blocks next.
//
// Scripting: `queue(...)` pushes replies consumed one per request; when empty the default reply is
// `Olá! Como posso ajudar?`. Every request is journaled with headers and its parsed JSON body.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolUse {
  name: string;
  input: unknown;
  id?: string;
}

/**
 * One scripted answer. `delay_ms` before answering; `status` ≠ 200 makes an error answer
 * (`retry_after_s` as `retry-after` on 429; 529 is `overloaded_error`); otherwise `text` and/or
 * `tool_use` blocks. Neither gives an empty `content: []`.
 */
export interface FakeAnthropicReply {
  text?: string;
  tool_use?: FakeToolUse[];
  status?: number;
  retry_after_s?: number;
  error_message?: string;
  delay_ms?: number;
  stop_reason?: string;
}

export interface RecordedAnthropicRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  json?: any;
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>`. */
  baseURL: string;
  requests: RecordedAnthropicRequest[];
  /** Bodies of the /v1/messages requests, in order. */
  messageRequests(): any[];
  queue(...replies: FakeAnthropicReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_TEXT = 'Olá! Como posso ajudar?';

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: RecordedAnthropicRequest[] = [];
  const replies: FakeAnthropicReply[] = [];
  let seq = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { type: 'error', error: { type: 'api_error', message: String(err) } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
    const path = (req.url ?? '/').split('?')[0]!;
    const record: RecordedAnthropicRequest = { method: req.method ?? 'GET', path, headers };
    requests.push(record);

    if (req.method !== 'POST' || path !== '/v1/messages')
      return send(res, 404, { type: 'error', error: { type: 'not_found_error', message: `Not found: ${req.method} ${path}` } });
    if (!headers.authorization?.startsWith('Bearer ') && !headers['x-api-key'])
      return send(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'missing credentials' } });
    record.json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const invalid = requestProblem(record.json);
    if (invalid) return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: invalid } });

    const reply = replies.shift() ?? { text: DEFAULT_TEXT };
    if (reply.delay_ms) await new Promise((r) => setTimeout(r, reply.delay_ms));
    if (reply.status && reply.status !== 200) {
      const type =
        reply.status === 429
          ? 'rate_limit_error'
          : reply.status === 529
            ? 'overloaded_error'
            : reply.status >= 500
              ? 'api_error'
              : 'invalid_request_error';
      const extra: Record<string, string> =
        reply.status === 429 && reply.retry_after_s !== undefined ? { 'retry-after': String(reply.retry_after_s) } : {};
      return send(res, reply.status, { type: 'error', error: { type, message: reply.error_message ?? `fake ${type}` } }, extra);
    }
    const content: unknown[] = [];
    if (reply.text) content.push({ type: 'text', text: reply.text, citations: null });
    for (const [i, use] of (reply.tool_use ?? []).entries())
      content.push({ type: 'tool_use', id: use.id ?? `toolu_${++seq}_${i}`, name: use.name, input: use.input ?? {} });
    return send(res, 200, {
      id: `msg_${++seq}`,
      type: 'message',
      role: 'assistant',
      model: record.json.model,
      content,
      stop_reason: reply.stop_reason ?? (reply.tool_use?.length ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: { input_tokens: 13, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  }

  /** The request rules of the real API that a wrong conversion would break (answered 400 there too). */
  function requestProblem(body: any): string | undefined {
    if (typeof body?.model !== 'string' || !body.model) return 'model: Field required';
    if (!Number.isInteger(body.max_tokens)) return 'max_tokens: Field required';
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
    if (messages[0].role !== 'user') return 'messages: first message must use the "user" role';
    for (const [i, m] of messages.entries()) {
      if (i > 0 && messages[i - 1].role === m.role)
        return `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`;
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: content must be non-empty`;
      if (blocks.some((b: any) => b.type === 'text' && !String(b.text ?? '').trim()))
        return `messages.${i}: text content blocks must be non-empty`;
      const uses = blocks.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
      if (uses.length) {
        const next = messages[i + 1];
        const results = Array.isArray(next?.content)
          ? next.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id)
          : [];
        if (next?.role !== 'user' || uses.some((id: string) => !results.includes(id)))
          return `messages.${i + 1}: Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message`;
        if (!Array.isArray(body.tools) || body.tools.length === 0)
          return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
      }
    }
    return undefined;
  }

  function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++seq}`, ...extra });
    res.end(JSON.stringify(body));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    messageRequests: () => requests.filter((r) => r.path === '/v1/messages' && r.json).map((r) => r.json),
    queue: (...more) => void replies.push(...more),
    reset() {
      requests.length = 0;
      replies.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
