// Loading, error and notice lines, announced to screen readers.
import type { ComponentChildren } from 'preact';
import { describeFailure } from '../api/client.js';
import { t } from '../i18n/index.js';

/** "Carregando…", announced politely (role="status"). */
export function Loading() {
  return (
    <p class="muted" role="status">
      {t.common.loading}
    </p>
  );
}

/** A failed load with its reason (role="alert") and, given `onRetry`, a button to try again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div class="notice notice-error" role="alert">
      <span>{t.common.loadFailed(describeFailure(error))}</span>
      {onRetry ? (
        <button type="button" class="button" onClick={onRetry}>
          {t.common.retry}
        </button>
      ) : null}
    </div>
  );
}

/** A result line: `ok` announced politely (role="status"), `error` at once (role="alert"). */
export function Notice({ kind, children }: { kind: 'ok' | 'error'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
