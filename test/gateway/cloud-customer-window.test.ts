// The 24-hour customer-service window on the KeyValue store, on the in-process store and on Redis:
// open for 24 h after the lead's latest message, never shortened by an older one, per instance and
// phone (Brazilian variants share a window), expiring with the window, correct under concurrent
// writers from several clients, and erasable.
import { expect, it } from 'vitest';
import { CUSTOMER_WINDOW_MS, CustomerWindow, windowPhone } from '../../adapters/gateway/cloud/customer-window.js';
import { forEachKeyValue, useFreshKeyValue } from '../helpers/key-values.js';

const H = 60 * 60 * 1000;

forEachKeyValue('customer window', (open) => {
  const store = useFreshKeyValue(open);

  it('closed before any message; open for 24 h after one; closed at exactly 24 h', async () => {
    const now = Date.now();
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    expect(await window.isOpen(7, '5543999806366', now)).toBe(false);
    expect(await window.openUntil(7, '5543999806366')).toBeNull();
    await window.noteInbound(7, '5543999806366', now - 2 * H);
    expect(await window.isOpen(7, '5543999806366', now)).toBe(true);
    expect(await window.openUntil(7, '5543999806366')).toBe(now - 2 * H + CUSTOMER_WINDOW_MS);
    expect(await window.isOpen(7, '5543999806366', now - 2 * H + CUSTOMER_WINDOW_MS - 1)).toBe(true);
    expect(await window.isOpen(7, '5543999806366', now - 2 * H + CUSTOMER_WINDOW_MS)).toBe(false);
  });

  it('a newer message extends it; an older one (a redelivered webhook) never shortens it', async () => {
    const now = Date.now();
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    await window.noteInbound(7, '5543999806366', now - 20 * H);
    await window.noteInbound(7, '5543999806366', now - 1 * H);
    await window.noteInbound(7, '5543999806366', now - 10 * H);
    await window.noteInbound(7, '5543999806366', now - 3 * H);
    expect(await window.openUntil(7, '5543999806366')).toBe(now - 1 * H + CUSTOMER_WINDOW_MS);
  });

  it('per instance and per phone; the 12- and 13-digit forms of a Brazilian mobile share one window', async () => {
    const now = Date.now();
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    await window.noteInbound(7, '554399806366', now); // legacy 12-digit wa_id
    expect(await window.isOpen(7, '5543999806366', now)).toBe(true); // the form's 13-digit phone
    expect(await window.isOpen(8, '5543999806366', now)).toBe(false);
    expect(await window.isOpen(7, '5511987654321', now)).toBe(false);
    expect(windowPhone('554399806366')).toBe('5543999806366');
    expect(windowPhone('554332782153')).toBe('554332782153'); // landline: no 9 added
    expect(windowPhone('14155552671')).toBe('14155552671');
  });

  it('a message older than 24 h opens nothing and writes nothing', async () => {
    const now = Date.now();
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    await window.noteInbound(7, '5543999806366', now - CUSTOMER_WINDOW_MS - 1);
    expect(await window.openUntil(7, '5543999806366')).toBeNull();
  });

  it('the keys expire with the window (TTL = at + 24 h - now)', async () => {
    const now = Date.now();
    // A message "sent" 24 h minus 150 ms ago: its window, and its keys, end 150 ms from now.
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    await window.noteInbound(7, '5543999806366', now - CUSTOMER_WINDOW_MS + 150);
    expect(await window.openUntil(7, '5543999806366')).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await window.openUntil(7, '5543999806366')).toBeNull();
  });

  it('concurrent writers through several clients: the latest instant wins', async () => {
    const now = Date.now();
    const clients = [store.current.kv, store.current.openAnother(), store.current.openAnother()];
    const ats = Array.from({ length: 24 }, (_, i) => now - ((i * 7919) % 24) * 60_000 - i);
    await Promise.all(
      ats.map((at, i) => new CustomerWindow(clients[i % clients.length]!, { now: () => now }).noteInbound(7, '5543999806366', at)),
    );
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    expect(await window.openUntil(7, '5543999806366')).toBe(Math.max(...ats) + CUSTOMER_WINDOW_MS);
  });

  it('forget() erases a lead (excluir); other leads keep theirs', async () => {
    const now = Date.now();
    const window = new CustomerWindow(store.current.kv, { now: () => now });
    await window.noteInbound(7, '5543999806366', now - 2 * H);
    await window.noteInbound(7, '5543999806366', now - 1 * H);
    await window.noteInbound(7, '5511987654321', now);
    expect(await window.forget(7, '554399806366')).toBe(2);
    expect(await window.isOpen(7, '5543999806366', now)).toBe(false);
    expect(await window.isOpen(7, '5511987654321', now)).toBe(true);
  });

  it('refuses an instant that is not a positive number and a phone without digits', async () => {
    const window = new CustomerWindow(store.current.kv);
    await expect(window.noteInbound(7, '5543999806366', Number.NaN)).rejects.toThrow(RangeError);
    await expect(window.noteInbound(7, 'abc', Date.now())).rejects.toThrow(TypeError);
  });
});
