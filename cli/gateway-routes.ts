// The gateway providers' verification GETs (adapters/gateway/provider-inbound.ts, InboundVerification),
// mounted beside the webhooks through buildWebhookApp's `extend` hook: a provider calls them to check
// a webhook URL before it posts events there (Cloud API: `GET /leadagent/cloud?hub.mode=subscribe&
// hub.verify_token=…&hub.challenge=…`). They start no flow and record nothing; the provider's
// `answer` decides status, content type and body. A rejected check is logged at warn with the
// provider and the path only (never the query: it holds the verify token); a lookup that fails
// answers like the webhooks (503 when the database is unreachable, else 500), details in the log.
import type express from 'express';
import type { InboundInstanceLookup, InboundProvider } from '../adapters/gateway/provider-inbound.js';
import { isDependencyUnavailable } from '../engine/errors/dependency-unavailable.js';
import type { Logger } from '../engine/logger.js';

/** The `extend` hook mounting each provider's verification GET. */
export function gatewayVerificationRoutes(
  providers: readonly InboundProvider[],
  instances: InboundInstanceLookup,
  logger: Logger,
): (app: express.Express) => void {
  return (app) => {
    for (const provider of providers) {
      const verification = provider.verification;
      if (!verification) continue;
      app.get(verification.path, async (req, res) => {
        let answer;
        try {
          answer = await verification.answer(req.query as Record<string, unknown>, instances);
        } catch (err) {
          const unavailable = isDependencyUnavailable(err);
          logger[unavailable ? 'warn' : 'error'](
            { provider: provider.provider, path: req.path, err: (err as Error).message },
            'webhook verification failed',
          );
          if (unavailable) res.set('Retry-After', '5');
          res
            .status(unavailable ? 503 : 500)
            .json({ error: unavailable ? 'service unavailable, try again shortly' : 'internal error', details: [] });
          return;
        }
        if (answer.status >= 400) logger.warn({ provider: provider.provider, path: req.path, ip: req.ip }, 'webhook verification refused');
        res.status(answer.status).type(answer.contentType).send(answer.body);
      });
    }
  };
}
