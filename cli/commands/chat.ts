import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { flowsDirectory } from '../flows-directory.js';
import { UsageError } from '../usage-error.js';
import { openMigratedDatabase } from './migrate.js';

function clinicIdOf(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(id) || id < 1)
    throw new UsageError(`--clinic expects a clinic id (a positive whole number), got "${value}"`);
  return id;
}

/**
 * `leadflow chat --clinic ID [--model PROVIDER:MODEL] [--flows DIR]`: a conversation with one
 * clinic's agent on stdin/stdout (cli/chat-session.ts); nothing is sent to anyone. A malformed
 * clinic id or model is a UsageError (exit 2); exits 1 when no turn was answered and some failed.
 */
export function registerChat(program: Command): void {
  program
    .command('chat')
    .description(
      "talk with one clinic's agent (the test path): same prompt and tools, the contingency model, memory kept only in this process; nothing is sent to anyone",
    )
    .requiredOption('--clinic <id>', 'clinic id (clinicas_com_atendentes.id)')
    .option('--model <provider:model>', 'model answering (default: $LEADFLOW_MODEL_CONTINGENCY)')
    .option('--flows <dir>', 'flows directory holding prompts/agent-system.md (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .addHelpText(
      'after',
      '\nOne message per line; /reset forgets the conversation, /sair or Ctrl-D ends it.\nReplies go to stdout as "agente> ..." lines; notes, tool calls and their results to stderr.\nA clinic with an agenda also gets the booking tools (prompts/agent-booking.md): real free slots, nothing booked.',
    )
    .action(async (opts: { clinic: string; model?: string; flows?: string }) => {
      const clinicaId = clinicIdOf(opts.clinic);
      const [{ createAiService }, { parseModelRef }, { runChatSession }, { bookingService }] = await Promise.all([
        import('../../adapters/ai/ai-service.js'),
        import('../../adapters/ai/model-ref.js'),
        import('../chat-session.js'),
        import('../../adapters/calendar/booking-service.js'),
      ]);
      const ai = createAiService(process.env);
      const model = opts.model ?? ai.models.contingency;
      try {
        parseModelRef(model);
      } catch (err) {
        throw new UsageError(`--model: ${(err as Error).message}`);
      }
      const promptFile = join(flowsDirectory(opts.flows), 'prompts/agent-system.md');
      const bookingPromptFile = join(flowsDirectory(opts.flows), 'prompts/agent-booking.md');
      const db = await openMigratedDatabase();
      const interactive = Boolean(process.stdin.isTTY);
      const rl = createInterface({ input: process.stdin, output: interactive ? process.stdout : undefined, terminal: interactive });
      const abort = new AbortController();
      rl.on('SIGINT', () => {
        abort.abort(new Error('interrupted'));
        rl.close();
      });
      // Taken at once: lines read while the prompt is being built wait in the iterator's buffer.
      const input = rl[Symbol.asyncIterator]();
      async function* lines(): AsyncGenerator<string> {
        if (interactive) rl.setPrompt('você> ');
        for (;;) {
          if (interactive) rl.prompt();
          const next = await input.next();
          if (next.done) return;
          yield next.value;
        }
      }
      try {
        const summary = await runChatSession({
          db,
          ai,
          clinicaId,
          model,
          promptFile,
          lines: lines(),
          out: process.stdout,
          err: process.stderr,
          rateLimitWaitMs: ai.models.rateLimitWaitMs,
          signal: abort.signal,
          booking: bookingService(db),
          bookingPromptFile,
        });
        if (summary.failed > 0 && summary.answered === 0) process.exitCode = 1;
      } finally {
        rl.close();
        await db.close();
      }
    });
}
