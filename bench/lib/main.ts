// How every benchmark script ends: its exit code is main's result (0 when main resolves to nothing),
// 1 with the error printed when main throws; and how scripts read their integer settings.
export function runMain(main: () => Promise<number | undefined> | Promise<void>): void {
  main().then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/**
 * The integer setting `name` of the environment: `fallback` when unset or empty; throws naming the
 * variable when it is not an integer >= 1 (>= 0 with `zeroOk`).
 */
export function positiveInt(name: string, fallback: number, zeroOk = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < (zeroOk ? 0 : 1))
    throw new Error(`${name} must be a ${zeroOk ? 'non-negative' : 'positive'} integer, got "${raw}"`);
  return n;
}
