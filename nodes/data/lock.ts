import { setTimeout as delay } from 'node:timers/promises';
import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';
import { releaseLockPatiently } from './lib/release-lock.js';

/**
 * `lock`: runs `do` while holding the lock `key`, so at most one execution per key runs it at a time
 * in any number of processes. Waits for the lock up to `wait_ms` (polling every `poll_ms`), then
 * fails. The lock lives `ttl_ms`, is renewed every ttl/2 while `do` runs, belongs to the execution
 * (one taken over finds it its own), and is released when `do` ends, fails or waits (tried again while the store is away, at most `ttl_ms`). Outputs
 * `{outputs, waited_ms}`. Needs the key-value store.
 */
export default defineServiceNode({
  type: 'lock',
  services: ['kv'],
  description:
    'Runs `do` while holding the lock `key`, so at most one execution per key runs it at a time, in any number of processes (e.g. one agent run per lead). Waits for the lock up to `wait_ms` (polling every `poll_ms`), then fails. The lock lives `ttl_ms` and is extended while `do` runs, so a crashed holder frees it after at most `ttl_ms`; it belongs to the execution, so the same execution resumed by another process takes it back at once. It is released when `do` ends, fails or waits (a waiting execution holds no lock; it takes it again when it resumes).',
  params: Type.Object(
    {
      key: Type.String({ minLength: 1, description: 'What to serialise on, e.g. the lead (clinic and phone).', examples: ['{{ vars.clinic_id }}:{{ vars.phone }}'] }),
      ttl_ms: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 30_000, description: 'Life of the lock, ms; renewed every ttl_ms/2 while `do` runs.', examples: [30_000] }),
      wait_ms: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 120_000, description: 'Longest wait for the lock, ms, before the step fails. 0: try once.', examples: [120_000, 0] }),
      poll_ms: Type.Integer({ minimum: 5, maximum: 60_000, default: 100, description: 'Pause between two attempts to take the lock, ms.', examples: [100] }),
    },
    { additionalProperties: false },
  ),
  children: { do: { description: 'Steps run while holding the lock.', shape: 'list', required: true } },
  terminates: 'all-children',
  output: { description: '`{outputs, waited_ms}`: the outputs of the `do` steps by id, and how long the lock took to get.' },
  examples: [
    {
      title: 'One agent run per lead at a time',
      step: {
        id: 'one_at_a_time',
        type: 'lock',
        params: { key: '{{ vars.clinic_id }}:{{ vars.phone }}', ttl_ms: 30_000, wait_ms: 120_000 },
        do: [{ id: 'answer', type: 'call-flow', params: { flow: 'agent', input: { clinic_id: '{{ vars.clinic_id }}', phone: '{{ vars.phone }}' } } }],
      },
    },
  ],
  async run(params, ctx) {
    const kv = ctx.services.kv;
    const started = Date.now();
    // The lock belongs to this execution, not to the process: an execution taken over after its
    // process died finds its own lock and goes on at once instead of waiting for it to expire.
    const mine = `execution:${ctx.executionId}`;
    let token = (await kv.extendLock(params.key, mine, params.ttl_ms)) ? mine : await kv.acquireLock(params.key, params.ttl_ms, mine);
    while (!token) {
      const left = params.wait_ms - (Date.now() - started);
      if (left <= 0) throw new Error(`could not acquire lock "${params.key}" within ${params.wait_ms} ms: another execution holds it`);
      await delay(Math.min(params.poll_ms, left), undefined, { signal: ctx.signal });
      token = await kv.acquireLock(params.key, params.ttl_ms, mine);
    }
    const waitedMs = Date.now() - started;
    const owned = token;

    // Keeps the lock alive while `do` runs: renews it every ttl/2 (one renewal in flight at a time).
    let renewal: NodeJS.Timeout | undefined;
    let done = false;
    const renew = () => {
      renewal = setTimeout(() => {
        kv.extendLock(params.key, owned, params.ttl_ms).then(
          (kept) => {
            if (done) return;
            if (!kept) ctx.log('warn', 'lock lost while its steps ran (it expired and may be held by another execution)', { key: params.key });
            else renew();
          },
          (err: unknown) => {
            ctx.log('warn', 'extending the lock failed; retrying', { key: params.key, error: (err as Error).message });
            if (!done) renew();
          },
        );
      }, Math.max(1, Math.floor(params.ttl_ms / 2)));
      renewal.unref();
    };
    renew();

    try {
      return { outputs: await ctx.runChildren('do'), waited_ms: waitedMs };
    } finally {
      done = true;
      clearTimeout(renewal);
      // While the store is away the release is tried again (at most the lock's life), so the key's
      // next holder does not wait for it to expire.
      await releaseLockPatiently(kv, params.key, owned, params.ttl_ms, (level, message, fields) => ctx.log(level, message, fields), ctx.signal);
    }
  },
});
