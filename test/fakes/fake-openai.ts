// A fake OpenAI API as a real HTTP server on 127.0.0.1 (port 0), for the real `openai` SDK via
// `baseURL: fake.baseURL` (ends in /v1). Endpoints: POST /v1/chat/completions (text, tool calls,
// empty, errors) and POST /v1/audio/transcriptions (multipart). Any other path answers 404 and is
// recorded, so a test can assert no other endpoint was used. Like the real API, chat answers 400
// when tool messages do not answer the preceding assistant turn's tool_calls one by one.
//
// Scripting: `queueChat(...)` / `queueTranscription(...)` push replies consumed one per request, in
// order; when a queue is empty the default reply is used (`Olá! Como posso ajudar?` / `transcrição`).
// Every request is journaled with headers and the parsed body (JSON, or multipart fields and file).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  name: string;
  /** Object (serialised as JSON) or raw text (to simulate invalid JSON). */
  arguments: unknown;
  id?: string;
}

/**
 * One scripted answer. Fields combine: `delay_ms` before answering; `status` ≠ 200 makes an error
 * answer (with `retry_after_s` as `retry-after` on 429); otherwise `text` / `tool_calls` / `transcript`.
 * `text: ''` (or nothing) gives an empty assistant message.
 */
export interface FakeOpenAiReply {
  text?: string;
  tool_calls?: FakeToolCall[];
  transcript?: string;
  status?: number;
  retry_after_s?: number;
  error_message?: string;
  delay_ms?: number;
  finish_reason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export interface RecordedFile {
  name: string;
  type: string;
  size: number;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (chat) or undefined. */
  json?: any;
  /** Multipart fields (transcriptions): strings, and files under their field name. */
  form?: Record<string, string | RecordedFile>;
}

export interface FakeOpenAi {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Bodies of the /v1/chat/completions requests, in order. */
  chatRequests(): any[];
  transcriptionRequests(): RecordedRequest[];
  queueChat(...replies: FakeOpenAiReply[]): void;
  queueTranscription(...replies: FakeOpenAiReply[]): void;
  /** Clears the journal and both queues. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_TEXT = 'Olá! Como posso ajudar?';
const DEFAULT_TRANSCRIPT = 'transcrição';

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  const chatQueue: FakeOpenAiReply[] = [];
  const transcriptionQueue: FakeOpenAiReply[] = [];
  let seq = 0;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err), type: 'server_error', param: null, code: null } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
    const path = (req.url ?? '/').split('?')[0]!;
    const record: RecordedRequest = { method: req.method ?? 'GET', path, headers };
    requests.push(record);
    const contentType = headers['content-type'] ?? '';

    if (req.method === 'POST' && path === '/v1/chat/completions') {
      record.json = JSON.parse(raw.toString('utf8'));
      const invalid = chatProblem(record.json);
      if (invalid) return send(res, 400, { error: { message: invalid, type: 'invalid_request_error', param: 'messages', code: null } });
      const reply = chatQueue.shift() ?? { text: DEFAULT_TEXT };
      if (reply.delay_ms) await new Promise((r) => setTimeout(r, reply.delay_ms));
      if (reply.status && reply.status !== 200) return sendError(res, reply);
      const toolCalls = (reply.tool_calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${++seq}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
      }));
      const message: Record<string, unknown> = {
        role: 'assistant',
        content: toolCalls.length && !reply.text ? null : (reply.text ?? ''),
        refusal: null,
        annotations: [],
      };
      if (toolCalls.length) message.tool_calls = toolCalls;
      const usage = reply.usage ?? { prompt_tokens: 11, completion_tokens: 7 };
      return send(res, 200, {
        id: `chatcmpl-${++seq}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: record.json.model,
        choices: [{ index: 0, finish_reason: reply.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop'), logprobs: null, message }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        service_tier: 'default',
        system_fingerprint: 'fp_fake',
      });
    }

    if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
      if (!contentType.startsWith('multipart/form-data'))
        return send(res, 400, {
          error: { message: 'expected multipart/form-data', type: 'invalid_request_error', param: null, code: null },
        });
      const form = await new Request(`http://fake${req.url ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: raw,
      }).formData();
      record.form = {};
      for (const [key, value] of form.entries()) {
        record.form[key] =
          typeof value === 'string'
            ? value
            : { name: value.name, type: value.type, size: value.size, bytes: Buffer.from(await value.arrayBuffer()) };
      }
      const reply = transcriptionQueue.shift() ?? { transcript: DEFAULT_TRANSCRIPT };
      if (reply.delay_ms) await new Promise((r) => setTimeout(r, reply.delay_ms));
      if (reply.status && reply.status !== 200) return sendError(res, reply);
      if (record.form.response_format === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': `req_${++seq}` });
        return res.end(reply.transcript ?? '');
      }
      return send(res, 200, { text: reply.transcript ?? '', usage: { type: 'duration', seconds: 1 } });
    }

    return send(res, 404, {
      error: { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error', param: null, code: null },
    });
  }

  /** The request rules of the real API that a wrong conversion would break (answered 400 there too). */
  function chatProblem(body: any): string | undefined {
    if (typeof body?.model !== 'string' || !body.model) return 'you must provide a model parameter';
    if (!Array.isArray(body.messages) || body.messages.length === 0) return "[] is too short - 'messages'";
    const open = new Set<string>();
    for (const [i, m] of body.messages.entries()) {
      if (m.role === 'tool') {
        if (!open.has(m.tool_call_id))
          return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages[${i}])`;
        open.delete(m.tool_call_id);
        continue;
      }
      if (open.size)
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) open.add(c.id);
    }
    if (open.size)
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    return undefined;
  }

  function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${++seq}`, ...extra });
    res.end(JSON.stringify(body));
  }

  function sendError(res: ServerResponse, reply: FakeOpenAiReply) {
    const status = reply.status!;
    const rateLimited = status === 429;
    const extra: Record<string, string> =
      rateLimited && reply.retry_after_s !== undefined ? { 'retry-after': String(reply.retry_after_s) } : {};
    send(
      res,
      status,
      {
        error: {
          message: reply.error_message ?? (rateLimited ? 'Rate limit reached for requests' : `fake error ${status}`),
          type: rateLimited ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error',
          param: null,
          code: rateLimited ? 'rate_limit_exceeded' : null,
        },
      },
      extra,
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.json),
    transcriptionRequests: () => requests.filter((r) => r.path === '/v1/audio/transcriptions'),
    queueChat: (...replies) => void chatQueue.push(...replies),
    queueTranscription: (...replies) => void transcriptionQueue.push(...replies),
    reset() {
      requests.length = 0;
      chatQueue.length = 0;
      transcriptionQueue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
