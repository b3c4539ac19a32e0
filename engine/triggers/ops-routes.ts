// Operations routes beside the webhooks (CONTRACT §4): `GET /readyz` (readiness: the host's checks)
// and `GET /metrics` (Prometheus text exposition). Both unauthenticated, like `/healthz`: serve them
// on a private network only. Answers never carry a stack, SQL or a connection string.
import { Router, type Request, type Response } from 'express';
import type { Logger } from '../logger.js';

/** What `GET /metrics` serves: a Prometheus text exposition rendered on each request. */
export interface MetricsEndpoint {
  /** Content-Type of the exposition (prom-client's registry.contentType). */
  contentType: string;
  render(): Promise<string>;
}

/** The host's readiness verdict: `GET /readyz` answers 200 when `ok`, else 503, with `checks`. */
export interface ReadinessResult {
  ok: boolean;
  /** Per dependency: `ok`, `not configured`, or a short reason (`failed`, `timeout`). */
  checks: Record<string, string>;
}

/** What `opsRoutes` serves. */
export interface OpsRoutesOptions {
  logger: Logger;
  /** `GET /metrics`; without it the route is not served. */
  metrics?: MetricsEndpoint;
  /** `GET /readyz` checks; without them `/readyz` answers ready with no checks. */
  ready?: () => Promise<ReadinessResult>;
}

/**
 * `GET /readyz` (503 `not ready` when a check fails or throws; `cache-control: no-store`) and, with
 * `metrics`, `GET /metrics` (500 `metrics unavailable` when rendering throws). Never throws.
 */
export function opsRoutes(options: OpsRoutesOptions): Router {
  const router = Router();
  const { logger } = options;

  router.get('/readyz', async (_req: Request, res: Response) => {
    res.set('cache-control', 'no-store');
    if (!options.ready) {
      res.json({ status: 'ready', checks: {} });
      return;
    }
    try {
      const result = await options.ready();
      res.status(result.ok ? 200 : 503).json({ status: result.ok ? 'ready' : 'not ready', checks: result.checks });
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'readiness check threw');
      res.status(503).json({ status: 'not ready', error: 'readiness check failed' });
    }
  });

  const metrics = options.metrics;
  if (metrics) {
    router.get('/metrics', async (_req: Request, res: Response) => {
      try {
        const text = await metrics.render();
        res.set('content-type', metrics.contentType).set('cache-control', 'no-store').send(text);
      } catch (err) {
        logger.error({ err: err instanceof Error ? err.message : String(err) }, 'rendering metrics failed');
        res.status(500).json({ error: 'metrics unavailable' });
      }
    });
  }
  return router;
}
