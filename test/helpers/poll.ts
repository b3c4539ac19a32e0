// Polling for a value the system produces asynchronously (a send seen by a fake, a row written).

/**
 * Resolves to the first truthy value `probe` returns, trying every 50 ms; rejects with
 * "timed out after <timeoutMs> ms waiting for <what>" when none came within `timeoutMs` (default 15000).
 */
export async function pollFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
