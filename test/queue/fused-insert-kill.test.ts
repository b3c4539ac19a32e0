// SIGKILL between a fused write and the next step (StartOptions.deferInsert, engine/run/run-saves.ts).
// A webhook answered by its respond step is recorded by the drive's first write, which carries the
// read-only steps walked before it: here `lookup` (set) and `answer` (respond), inserted together
// right before `notify` (http.request, an effect) starts, and the answer handed on only then.
// `leadflow serve` (embedded: queue mode records a start as due before any drive, so nothing is
// deferred there) is SIGKILLed while `notify`'s request is held by this test's server. The record
// then holds the two read-only steps, done; the restarted server takes the execution over, runs
// `notify` again (the step it was in) and not the two before it, and ends it once.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { startServe, type ServeProcess } from '../helpers/cli.js';
import { embeddedBackend, type FaultBackend } from '../helpers/fault-processes.js';
import { pollFor } from '../helpers/poll.js';

const FLOW = `name: fused
trigger:
  webhook: { path: /fused, auth: none, respond: { mode: step, timeout_ms: 10000 } }
steps:
  - id: lookup
    type: set
    params: { values: { order: '{{ trigger.body.order }}' } }
  - id: answer
    type: respond
    params: { status: 200, body: { status: accepted, order: '{{ steps.lookup.order }}' } }
  - id: notify
    type: http.request
    params: { method: POST, url: '{{ trigger.body.notify_url }}', body: { order: '{{ steps.lookup.order }}' } }
`;

/** The server `notify` calls: holds the first request (never answered), answers the others 200. */
class NotifyServer {
  readonly bodies: string[] = [];
  private readonly held: ServerResponse[] = [];
  private readonly server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      this.bodies.push(body);
      if (this.bodies.length === 1) this.held.push(res);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/notify`;
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('SIGKILL between a fused write and the next step [sqlite, in-process]', () => {
  let backend: FaultBackend;
  let flowsDir: string;
  let notify: NotifyServer;
  let notifyUrl: string;
  let serving: ServeProcess | undefined;
  let db: Database | undefined;

  beforeAll(async () => {
    backend = await embeddedBackend('leadflow-fused');
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-fused-flows-'));
    writeFileSync(join(flowsDir, 'fused.yaml'), FLOW);
    notify = new NotifyServer();
    notifyUrl = await notify.start();
  });
  afterEach(async () => {
    await serving?.stop('SIGKILL');
    serving = undefined;
    await db?.close();
    db = undefined;
  });
  afterAll(async () => {
    await notify?.close();
    rmSync(flowsDir, { recursive: true, force: true });
    await backend?.cleanup();
  });

  it('the record holds the read-only steps written with it; the restarted server runs only the step it was in, once more, and ends it once', async () => {
    const env = { ...backend.env, LEADFLOW_FLOWS_DIR: flowsDir, LEADFLOW_LEASE_MS: '2000' };
    serving = await startServe([], env);
    db = backend.open();
    const store = new DbExecutionStore(db);

    const answer = await fetch(`${serving.url}/fused`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order: 7, notify_url: notifyUrl }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'accepted', order: 7 });
    // The answer went out once the record was stored: it is there as soon as the answer is.
    const [running] = await store.list({ flow: 'fused', limit: 5 });
    expect(running?.status).toBe('running');
    const id = running!.id;

    await pollFor('notify to be called', async () => notify.bodies.length === 1, 10_000);
    await serving.stop('SIGKILL');
    serving = undefined;

    // The fused write: the row inserted right before `notify` carries the two steps before it, done.
    const cut = (await store.get(id))!;
    expect(cut.status).toBe('running');
    expect(cut.steps.map((s) => [s.key, s.status])).toEqual([
      ['lookup', 'success'],
      ['answer', 'success'],
    ]);
    expect(cut.response).toEqual({ status: 200, body: { status: 'accepted', order: 7 } });

    serving = await startServe([], env);
    await pollFor('the execution taken over to end', async () => (await store.get(id))?.status === 'success', 30_000);
    const done = (await store.get(id))!;
    expect(done.steps.map((s) => [s.key, s.status])).toEqual([
      ['lookup', 'success'],
      ['answer', 'success'],
      ['notify', 'success'],
    ]);
    // The steps written with the row were not run again; the step it was in was, once.
    expect(done.steps.slice(0, 2)).toStrictEqual(cut.steps);
    expect(notify.bodies.map((b) => JSON.parse(b))).toEqual([{ order: 7 }, { order: 7 }]);
    expect(await store.list({ flow: 'fused', limit: 5 })).toHaveLength(1);
  }, 90_000);
});
