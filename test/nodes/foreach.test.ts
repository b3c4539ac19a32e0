import { afterEach, describe, expect, it } from 'vitest';
import { answeredTogether } from '../helpers/answered-together.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { runFlow, shutdownEngines, stepRecord, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

// Each iteration calls the server, which answers after `delay` ms.
const callFlow = (concurrency: number) => `
name: foreach-calls
steps:
  - id: each
    type: foreach
    params: { items: "{{ trigger.body.items }}", concurrency: ${concurrency} }
    do:
      - id: call
        type: http.request
        params: { url: "{{ trigger.body.url }}", query: { item: "{{ item.name }}", delay: "{{ item.delay }}" } }
`;
const delayed = () => startServer((req) => ({ json: { item: req.query.item }, delayMs: Number(req.query.delay) }));

describe('foreach', () => {
  it('runs one iteration at a time in item order by default', async () => {
    const server = await delayed();
    const items = [
      { name: 'a', delay: 60 },
      { name: 'b', delay: 5 },
      { name: 'c', delay: 30 },
    ];
    const { record } = await runFlow(callFlow(1), { body: { url: server.url, items } });
    expect(record.status).toBe('success');
    expect(server.requests.map((r) => r.query.item)).toEqual(['a', 'b', 'c']);
    expect(server.maxInFlight).toBe(1);
    expect(output(record, 'each').results.map((r: any) => r.call.body.item)).toEqual(['a', 'b', 'c']);
    expect(stepRecord(record, 'each').params).toMatchObject({ concurrency: 1 });
  });

  it('respects the concurrency bound and keeps results in item order', async () => {
    // Calls are answered three at a time, once three are in flight together; within each three the
    // later item answers first, so the results come back out of item order.
    const server = await startServer(answeredTogether(3, (req) => ({ json: { item: req.query.item }, delayMs: Number(req.query.delay) })));
    const items = Array.from({ length: 9 }, (_, i) => ({ name: `i${i}`, delay: 90 - i * 10 }));
    const { record } = await runFlow(callFlow(3), { body: { url: server.url, items } });
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(9);
    expect(server.maxInFlight).toBe(3);
    const each = output(record, 'each');
    expect(each.count).toBe(9);
    expect(each.results.map((r: any) => r.call.body.item)).toEqual(items.map((i) => i.name));
  });

  it('gives each iteration its own item, index and steps.<id>, even when iterations interleave', async () => {
    // The four calls are answered once all four are in flight, the last item's first.
    const server = await startServer(answeredTogether(4, (req) => ({ json: { v: req.query.v }, delayMs: Number(req.query.delay) })));
    const { record } = await runFlow(
      `
name: foreach-scope
steps:
  - id: each
    type: foreach
    params: { items: [10, 20, 30, 40], concurrency: 4 }
    do:
      - id: first
        type: set
        params: { values: { v: "{{ item }}" } }
      - id: call
        type: http.request
        params: { url: "{{ trigger.body.url }}", query: { v: "{{ steps.first.v }}", delay: "{{ (3 - index) * 40 }}" } }
      - id: last
        type: set
        params: { values: { item: "{{ item }}", index: "{{ index }}", first: "{{ steps.first.v }}", echoed: "{{ $number(steps.call.body.v) }}" } }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('success');
    expect(server.maxInFlight).toBe(4);
    expect(output(record, 'each').results.map((r: any) => r.last)).toEqual([
      { item: 10, index: 0, first: 10, echoed: 10 },
      { item: 20, index: 1, first: 20, echoed: 20 },
      { item: 30, index: 2, first: 30, echoed: 30 },
      { item: 40, index: 3, first: 40, echoed: 40 },
    ]);
    expect(stepRecord(record, 'each[2]/last').output).toEqual({ item: 30, index: 2, first: 30, echoed: 30 });
  });

  it("outputs {count, results} with each iteration's step outputs by id; empty list gives count 0", async () => {
    const flow = `
name: foreach-output
steps:
  - id: each
    type: foreach
    params: { items: "{{ trigger.body.items }}" }
    do:
      - id: double
        type: set
        params: { values: { v: "{{ item * 2 }}" } }
      - id: label
        type: set
        params: { values: { text: "#{{ index }}={{ steps.double.v }}" } }
  - id: after
    type: set
    params: { values: { count: "{{ steps.each.count }}", sees_inner: "{{ $exists(steps.double) }}" } }
`;
    const { record } = await runFlow(flow, { body: { items: [1, 2] } });
    expect(output(record, 'each')).toEqual({
      count: 2,
      results: [
        { double: { v: 2 }, label: { text: '#0=2' } },
        { double: { v: 4 }, label: { text: '#1=4' } },
      ],
    });
    expect(output(record, 'after')).toEqual({ count: 2, sees_inner: false });

    const empty = await runFlow(flow, { body: { items: [] } });
    expect(empty.record.status).toBe('success');
    expect(output(empty.record, 'each')).toEqual({ count: 0, results: [] });
    expect(empty.record.steps.map((s) => s.id)).toEqual(['each', 'after']);
  });

  it('fails on items that are not a list', async () => {
    const { record } = await runFlow(
      `
name: foreach-bad
steps:
  - id: each
    type: foreach
    params: { items: "{{ trigger.body.items }}" }
    do:
      - id: noop
        type: set
        params: { values: {} }
`,
      { body: { items: 'abc' } },
    );
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('step "each" (foreach): params.items must be array');
  });

  it('a failing iteration fails the foreach once the running iterations finish', async () => {
    const server = await startServer((req) => (req.query.item === 'bad' ? { status: 500, text: 'no' } : { json: {}, delayMs: 150 }));
    const { record } = await runFlow(callFlow(2), {
      body: {
        url: server.url,
        items: [
          { name: 'slow', delay: 0 },
          { name: 'bad', delay: 0 },
        ],
      },
    });
    expect(record.status).toBe('failed');
    expect(record.error?.step).toBe('call');
    expect(stepRecord(record, 'each').status).toBe('error');
    expect(stepRecord(record, 'each[0]/call').status).toBe('success');
    expect(stepRecord(record, 'each[1]/call').status).toBe('error');
  });
});
