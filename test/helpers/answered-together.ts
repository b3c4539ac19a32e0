// A reply for test/helpers/http-echo-server.ts that shows calls overlap by counting, not by timing:
// each request is held until `size` requests are held at once, and then they are all answered. A
// caller that makes its calls one at a time never gathers `size`: each of its requests is let go
// after `giveUpMs` (so the flow still ends, slowly) and the server's `maxInFlight` stays below
// `size`, which is what the test asserts. A caller that makes more calls at once than it should
// shows it in `maxInFlight` too: the next call arrives while a released group is still answering.
import type { ReplyFn } from './http-echo-server.js';

/** Holds each request until `size` are held together (at most `giveUpMs`), then answers with `reply`. */
export function answeredTogether(size: number, reply: ReplyFn, giveUpMs = 2_000): ReplyFn {
  let held: Array<() => void> = [];
  return async (req, index) => {
    await new Promise<void>((resolve) => {
      const release = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        held = held.filter((other) => other !== release);
        resolve();
      }, giveUpMs);
      held.push(release);
      if (held.length >= size) {
        const group = held;
        held = [];
        for (const go of group) go();
      }
    });
    return reply(req, index);
  };
}
