// The take-over check (Engine.takeOverDeadHolders, engine/run/sweep.ts; run by serve and worker every
// LEADFLOW_TAKE_OVER_CHECK_MS, cli/take-over-check.ts): a running execution whose holder is a dead
// process of this machine is taken over at once, long before its lease lapses; one held by a live
// process of this machine, or by another machine (whose death only its lease's lapse can tell), is
// left alone. On the memory store and on the database store (SQLite and PostgreSQL).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { DEFAULT_TAKE_OVER_CHECK_MS, startTakeOverCheck, takeOverCheckMsFromEnv } from '../../cli/take-over-check.js';
import { isDeadLocalOwner, leaseOwnerName } from '../../engine/run/leases.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { makeEngine, shutdownEngines, until } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
});

const FLOW = `
name: held
steps:
  - id: pause
    type: wait
    params: { ms: 600000 }
`;

/** A lease life far beyond the test: only the check can take these executions before it lapses. */
const LEASE_MS = 10 * 60_000;

/** The pid of a process of this machine that has exited (a child spawned and awaited). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A process of this machine that stays alive until `stop()`. */
function livePid(): { pid: number; stop: () => void } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

/** Stores a running execution of `held` (no step done) under `owner`'s lease, lapsing in LEASE_MS. */
async function interrupted(store: ExecutionStore, owner: string): Promise<string> {
  const now = new Date().toISOString();
  const record: ExecutionRecord = {
    id: randomUUID(),
    flow: 'held',
    status: 'running',
    trigger: { body: {}, headers: {}, query: {} },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: now,
    updated_at: now,
  };
  await store.insertLeased(record, { owner, until: Date.now() + LEASE_MS });
  return record.id;
}

function takeOverContract(makeStore: () => ExecutionStore) {
  it('takes over a dead local holder’s executions now, and leaves a live local holder’s and another machine’s alone', async () => {
    const store = makeStore();
    const engine = makeEngine(FLOW, { store, leaseMs: LEASE_MS });
    const live = livePid();
    try {
      const deadOwner = `${hostname()}:${await deadPid()}:0badf00d`;
      const liveOwner = `${hostname()}:${live.pid}:0badf00d`;
      const remoteOwner = 'elsewhere.example:4242:deadbeef';
      const dead = await interrupted(store, deadOwner);
      const alive = await interrupted(store, liveOwner);
      const remote = await interrupted(store, remoteOwner);

      expect(await engine.takeOverDeadHolders()).toEqual([dead]);
      await until(async () => (await store.get(dead))?.status === 'waiting');
      const taken = await store.get(dead);
      expect(taken?.steps.map((s) => [s.id, s.status])).toEqual([['pause', 'waiting']]);
      const leases = new Map((await store.listRunning()).map((r) => [r.id, r.lease_owner]));
      expect(leases).toEqual(
        new Map([
          [alive, liveOwner],
          [remote, remoteOwner],
        ]),
      );
      // Nothing more to take: a second check finds nothing (the taken one waits, the others stay held).
      expect(await engine.takeOverDeadHolders()).toEqual([]);
    } finally {
      live.stop();
    }
  });

  it('an earlier process with this process’s pid (a restarted container) is dead; this process’s own names are not', async () => {
    const store = makeStore();
    const engine = makeEngine(FLOW, { store, leaseMs: LEASE_MS });
    const earlier = await interrupted(store, `${hostname()}:${process.pid}:0badf00d`);
    const mine = await interrupted(store, leaseOwnerName());
    expect(await engine.takeOverDeadHolders()).toEqual([earlier]);
    await until(async () => (await store.get(earlier))?.status === 'waiting');
    expect((await store.get(mine))?.status).toBe('running');
  });
}

describe('take-over check [memory store]', () => {
  takeOverContract(() => new MemoryExecutionStore());
});

forEachDatabase('take-over check', (open) => {
  const t = useFreshDatabase(open);
  takeOverContract(() => new DbExecutionStore(t.current.db));
});

describe('isDeadLocalOwner', () => {
  it('tells a dead pid of this machine from a live one, another machine and an unreadable name', async () => {
    const pid = await deadPid();
    expect(isDeadLocalOwner(`${hostname()}:${pid}:00000000`)).toBe(true);
    expect(isDeadLocalOwner(`${hostname()}:${process.ppid}:00000000`)).toBe(false);
    expect(isDeadLocalOwner(`elsewhere.example:${pid}:00000000`)).toBe(false);
    expect(isDeadLocalOwner(`${hostname()}:not-a-pid:00000000`)).toBe(false);
    expect(isDeadLocalOwner(leaseOwnerName())).toBe(false);
  });
});

describe('the take-over check timer (cli/take-over-check.ts)', () => {
  it('LEADFLOW_TAKE_OVER_CHECK_MS: default 2000, 0 turns it off, at least 250, nonsense gives the default', () => {
    expect(takeOverCheckMsFromEnv({})).toBe(DEFAULT_TAKE_OVER_CHECK_MS);
    expect(DEFAULT_TAKE_OVER_CHECK_MS).toBe(2000);
    expect(takeOverCheckMsFromEnv({ LEADFLOW_TAKE_OVER_CHECK_MS: '0' })).toBe(0);
    expect(takeOverCheckMsFromEnv({ LEADFLOW_TAKE_OVER_CHECK_MS: '10' })).toBe(250);
    expect(takeOverCheckMsFromEnv({ LEADFLOW_TAKE_OVER_CHECK_MS: '5000' })).toBe(5000);
    expect(takeOverCheckMsFromEnv({ LEADFLOW_TAKE_OVER_CHECK_MS: '-1' })).toBe(2000);
    expect(takeOverCheckMsFromEnv({ LEADFLOW_TAKE_OVER_CHECK_MS: 'soon' })).toBe(2000);
  });

  it('runs one check at a time, logs a failing store once until it works again, and stops', async () => {
    const { logger, lines } = captureLogger();
    let calls = 0;
    let inFlight = 0;
    let overlapped = false;
    let fail = true;
    const stop = startTakeOverCheck(
      {
        async takeOverDeadHolders() {
          calls++;
          inFlight++;
          overlapped ||= inFlight > 1;
          await new Promise((r) => setTimeout(r, 600));
          inFlight--;
          if (fail) throw new Error('database away');
          return [];
        },
      },
      logger,
      250,
    );
    await until(() => calls >= 3, 5000);
    fail = false;
    await until(() => lines().some((l) => l.msg === 'the take-over check works again'), 5000);
    stop();
    const stoppedAt = calls;
    await new Promise((r) => setTimeout(r, 800));
    expect(overlapped).toBe(false);
    expect(calls).toBeLessThanOrEqual(stoppedAt + 1);
    expect(lines().filter((l) => l.msg === 'the take-over check failed; it keeps trying')).toHaveLength(1);
  });
});
