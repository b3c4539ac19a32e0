// The execution page's waterfall geometry (console/src/components/waterfall-layout.ts): bars by start
// and duration on one linear axis; a long gap cut into a fixed-width break so the short steps around
// it stay readable; open-ended bars for waiting and running steps; waits that ended sized by what
// they waited; a step still waiting in a record that ended stops where the record ended.
import { describe, expect, it } from 'vitest';
import type { ExecutionRecord, StepRecord } from '../../engine/types.js';
import { BREAK_PERCENT, MIN_BAR_PERCENT, positionOf, waterfallLayout } from '../../console/src/components/waterfall-layout.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const DAY = 86_400_000;

function step(key: string, startMs: number, ms: number, extra: Partial<StepRecord> = {}): StepRecord {
  return { key, id: key, type: 'set', status: 'success', attempt: 1, started_at: new Date(T0 + startMs).toISOString(), ms, ...extra };
}

function execution(steps: StepRecord[], extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    id: 'e',
    flow: 'f',
    status: 'success',
    trigger: {},
    vars: {},
    steps,
    outbound: [],
    dry_run: false,
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0 + 130).toISOString(),
    finished_at: new Date(T0 + 130).toISOString(),
    ...extra,
  };
}

describe('waterfall layout', () => {
  it('places each bar by its start and sizes it by its duration on one linear axis', () => {
    const layout = waterfallLayout(execution([step('a', 0, 10), step('b', 10, 100), step('c', 110, 20)]), T0 + 1000);
    expect(layout.pieces).toEqual([{ from: 0, to: 130, x0: 0, x1: 100, cut: false }]);
    expect(layout.total).toBe(130);
    const [a, b, c] = layout.spans;
    expect(a).toMatchObject({ start: 0, end: 10, left: 0, open: false });
    expect(a!.width).toBeCloseTo((10 / 130) * 100, 6);
    expect(b!.left).toBeCloseTo((10 / 130) * 100, 6);
    expect(b!.width).toBeCloseTo((100 / 130) * 100, 6);
    expect(c!.left + c!.width).toBeCloseTo(100, 6);
  });

  it('cuts a wait of a day into a break; the steps before it keep the rest of the width; the waiting bar is open to its wake time', () => {
    const wakeAt = T0 + DAY;
    const record = execution(
      [
        step('delays', 0, 2),
        step('each_delay', 2, 1, { type: 'foreach', status: 'waiting' }),
        step('each_delay[0]/due', 3, 1, { type: 'wait', status: 'waiting', state: { started_at: T0 + 3, wake_at: wakeAt } }),
      ],
      { status: 'waiting', wake_at: wakeAt, finished_at: undefined, updated_at: new Date(T0 + 4).toISOString() },
    );
    const layout = waterfallLayout(record, T0 + 60_000);
    expect(layout.total).toBe(60_000);
    expect(layout.axisEnd).toBe(DAY);
    expect(layout.pieces.map((p) => [p.from, p.to, p.cut])).toEqual([
      [0, 3, false],
      [3, DAY, true],
    ]);
    expect(layout.pieces.at(-1)).toMatchObject({ x0: 100 - BREAK_PERCENT, x1: 100 });
    const [delays, loop, due] = layout.spans;
    expect(delays).toMatchObject({ left: 0, open: false });
    expect(delays!.width).toBeCloseTo(((100 - BREAK_PERCENT) * 2) / 3, 6);
    // Both waiting steps run open to the wake time (the loop has no state of its own: the record's wake time).
    expect(loop).toMatchObject({ open: true, wakeAt, end: DAY });
    expect(due).toMatchObject({ open: true, wakeAt, end: DAY });
    expect(due!.left + due!.width).toBeCloseTo(100, 6);
  });

  it('keeps a long stretch at scale when the rest is not much shorter, and never cuts under a minute', () => {
    const minute = execution([step('a', 0, 60_000), step('b', 60_000, 200_000)], {
      finished_at: new Date(T0 + 260_000).toISOString(),
    });
    expect(waterfallLayout(minute, T0).pieces.every((p) => !p.cut)).toBe(true);
    const short = execution([step('a', 0, 1), step('w', 1, 0, { type: 'wait', output: { waited_ms: 50_000 } })], {
      finished_at: new Date(T0 + 50_001).toISOString(),
    });
    const layout = waterfallLayout(short, T0);
    expect(layout.pieces.every((p) => !p.cut)).toBe(true);
    // A wait that ended lasts what it waited, not its last attempt's few ms.
    expect(layout.spans[1]).toMatchObject({ start: 1, end: 50_001 });
  });

  it('cuts each long gap of its own, one scale for the rest', () => {
    const sentAt = 3 * DAY;
    const record = execution(
      [
        step('plan', 0, 5),
        step('first', 5, 2, { type: 'wait', output: { waited_ms: DAY } }),
        step('send', DAY + 7, 40),
        step('second', DAY + 47, 2, { type: 'wait', output: { waited_ms: 2 * DAY } }),
        step('send2', sentAt + 49, 30),
      ],
      { finished_at: new Date(T0 + sentAt + 79).toISOString() },
    );
    const layout = waterfallLayout(record, T0 + sentAt + 100);
    const cuts = layout.pieces.filter((p) => p.cut);
    // Each wait that ended spans its own break, which is as long as it waited.
    expect(cuts.map((p) => [p.from, p.to])).toEqual([
      [5, DAY + 5],
      [DAY + 47, 3 * DAY + 47],
    ]);
    for (const [i, cut] of [
      [1, cuts[0]!],
      [3, cuts[1]!],
    ] as const) {
      expect(layout.spans[i]!.left).toBeCloseTo(cut.x0, 6);
      expect(layout.spans[i]!.left + layout.spans[i]!.width).toBeCloseTo(cut.x1, 6);
    }
    // The steps between the breaks share one scale: 40 ms of send is 20 times the 2 ms of the gap before it.
    const send = layout.spans[2]!;
    expect(send.width / (send.left - cuts[0]!.x1)).toBeCloseTo(20, 6);
    // Positions only grow along the axis.
    const xs = [0, 5, 7, DAY, DAY + 47, 2 * DAY, sentAt + 49, sentAt + 79].map((t) => positionOf(layout.pieces, t));
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
  });

  it('in a record that ended, a step left waiting stops where the record ended; running steps of an unfinished record run to now', () => {
    const cancelled = execution([step('pause', 0, 1, { type: 'wait', status: 'waiting', state: { wake_at: T0 + DAY } })], {
      status: 'cancelled',
      finished_at: new Date(T0 + 5000).toISOString(),
    });
    const ended = waterfallLayout(cancelled, T0 + 9000);
    expect(ended.spans[0]).toMatchObject({ start: 0, end: 5000, open: false });
    expect(ended.spans[0]!.wakeAt).toBeUndefined();
    expect(ended.axisEnd).toBe(5000);

    const running = execution([step('call', 100, 0, { type: 'http.request', status: 'running' })], {
      status: 'running',
      finished_at: undefined,
    });
    const live = waterfallLayout(running, T0 + 1100);
    expect(live.spans[0]).toMatchObject({ start: 100, end: 1100, open: true });
    expect(live.total).toBe(1100);
  });

  it('draws a 0 ms step as a sliver, and an execution without time as one point', () => {
    const layout = waterfallLayout(execution([step('a', 0, 0)], { finished_at: new Date(T0).toISOString() }), T0);
    expect(layout.spans[0]).toMatchObject({ left: 0, width: MIN_BAR_PERCENT });
  });

  it("draws a finished grouping window (debounce) as long as it waited, up to the next step's start", () => {
    // 8 s of quiet: the debounce step's last attempt took 2 ms after it woke; the reply starts at 8 s.
    const steps = [step('msg', 0, 3), step('burst', 3, 2, { type: 'debounce' }), step('reply', 8003, 40)];
    const layout = waterfallLayout(execution(steps, { finished_at: new Date(T0 + 8043).toISOString() }), T0 + 9000);
    const [, burst, reply] = layout.spans;
    expect(burst).toMatchObject({ start: 3, end: 8003, open: false });
    expect(burst!.left + burst!.width).toBeCloseTo(reply!.left, 1);
    expect(burst!.width).toBeGreaterThan(90);
    // The last step of a finished record runs to the record's end.
    const last = waterfallLayout(
      execution([step('msg', 0, 3), step('burst', 3, 2, { type: 'debounce' })], { finished_at: new Date(T0 + 8005).toISOString() }),
      T0 + 9000,
    );
    expect(last.spans[1]).toMatchObject({ start: 3, end: 8005 });
  });
});
