// Everything an error could leak through: message, stack, own fields, and the same for each cause.
export function errorText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', String(current));
      try {
        parts.push(JSON.stringify(current, Object.getOwnPropertyNames(current)));
      } catch {
        /* circular: message and stack are enough */
      }
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(typeof current === 'string' ? current : JSON.stringify(current));
      current = undefined;
    }
  }
  return parts.join('\n');
}

/** Awaits the promise and returns what it rejected with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, got a value');
}
