// cli/fd-line-writer.ts: the lines of one turn go out in one write at its end, in order; a full pipe
// (EAGAIN, a partial write) keeps the rest for a later try without losing or reordering any; a broken
// one drops them; flushSync writes what waits and gives up on a reader that never reads.
import { describe, expect, it } from 'vitest';
import { FdLineWriter, RETRY_MS } from '../../cli/fd-line-writer.js';

/** A pipe played by a function: takes up to `room` bytes a write (Infinity: all), fails as `fail` says. */
function fakePipe() {
  const pipe = {
    writes: [] as string[],
    room: Number.POSITIVE_INFINITY,
    fail: undefined as string | undefined,
    write: (fd: number, data: Buffer): number => {
      expect(fd).toBe(7);
      if (pipe.fail) throw Object.assign(new Error(pipe.fail), { code: pipe.fail });
      if (pipe.room <= 0) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
      const taken = Math.min(pipe.room, data.length);
      pipe.room -= taken;
      pipe.writes.push(data.subarray(0, taken).toString());
      return taken;
    },
    text: () => pipe.writes.join(''),
  };
  return pipe;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FdLineWriter', () => {
  it('writes the lines of one turn together at its end, and a later turn in a write of its own', async () => {
    const pipe = fakePipe();
    const writer = new FdLineWriter(7, pipe.write);
    writer.write('a\n');
    writer.write('b\n');
    expect(pipe.writes).toEqual([]);
    await turn();
    expect(pipe.writes).toEqual(['a\nb\n']);
    writer.write('c\n');
    await turn();
    expect(pipe.writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('keeps what a full pipe did not take and writes it first once there is room, nothing lost or reordered', async () => {
    const pipe = fakePipe();
    pipe.room = 3;
    const writer = new FdLineWriter(7, pipe.write);
    writer.write('line 1\n');
    await turn();
    expect(pipe.text()).toBe('lin');
    writer.write('line 2\n');
    await sleep(RETRY_MS * 3);
    expect(pipe.text()).toBe('lin');
    pipe.room = Number.POSITIVE_INFINITY;
    await sleep(RETRY_MS * 3);
    expect(pipe.text()).toBe('line 1\nline 2\n');
  });

  it('drops the lines of a broken pipe, and every later one, without throwing', async () => {
    const pipe = fakePipe();
    const writer = new FdLineWriter(7, pipe.write);
    pipe.fail = 'EPIPE';
    writer.write('lost\n');
    await turn();
    pipe.fail = undefined;
    writer.write('also dropped\n');
    await turn();
    writer.flushSync(0);
    expect(pipe.writes).toEqual([]);
  });

  it('flushSync writes what waits at once, the unwritten part of an earlier write first', async () => {
    const pipe = fakePipe();
    pipe.room = 4;
    const writer = new FdLineWriter(7, pipe.write);
    writer.write('first\n');
    await turn();
    writer.write('second\n');
    pipe.room = Number.POSITIVE_INFINITY;
    writer.flushSync();
    expect(pipe.text()).toBe('first\nsecond\n');
  });

  it('flushSync waits for a reader that does not read only as long as it is told, then drops the rest', () => {
    const pipe = fakePipe();
    pipe.room = 0;
    const writer = new FdLineWriter(7, pipe.write);
    writer.write('never read\n');
    const started = Date.now();
    writer.flushSync(60);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(waited).toBeLessThan(2_000);
    pipe.room = Number.POSITIVE_INFINITY;
    writer.flushSync();
    expect(pipe.writes).toEqual([]);
  });
});
