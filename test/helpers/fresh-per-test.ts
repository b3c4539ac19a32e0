// A fresh fixture for every test of the enclosing describe, cleaned up after each: call inside a
// describe body and read `.current` in the tests. `what` names it in the misuse error.
import { afterEach, beforeEach } from 'vitest';

export function freshPerTest<T extends { cleanup(): Promise<void> }>(open: () => Promise<T>, what: string): { readonly current: T } {
  let current: T | undefined;
  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return {
    get current() {
      if (!current) throw new Error(`no ${what}: it exists inside tests only`);
      return current;
    },
  };
}
