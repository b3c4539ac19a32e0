// A person's reply to the lead from its page (POST /admin/leads/:id/messages, CONTRACT §13): a
// textarea with its character count (at most 4,096), Enviar, the agent's pause it causes ("Agente
// pausado até 16:40") and "Devolver ao agente" (the resume action) beside it. An opted-out lead asks
// first (a dialog); the Cloud API's closed 24-hour window (409 `window`) offers the follow-up
// template instead. Focus goes back to the button that opened a dialog when it closes.
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LeadActionResponse, LeadDetail } from '../../server/api-types.js';
import type { ReplyConflict, ReplyRequest, ReplyResponse } from '../../server/people-api-types.js';
import { api, ApiFailure, describeFailure } from '../api/client.js';
import { formatTime } from '../format.js';
import { t } from '../i18n/index.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { Notice } from './feedback.js';

/** The longest reply, characters (the server's limit). */
const MAX_CHARS = 4096;

type Outcome = { kind: 'ok' | 'error'; text: string } | { kind: 'window' } | null;

/** The reply box of `lead`; `onChanged` reloads the page after a reply or a resume. */
export function ReplyBox({ lead, onChanged }: { lead: LeadDetail; onChanged: () => void }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<ReplyRequest | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const sendButton = useRef<HTMLButtonElement>(null);
  const templateButton = useRef<HTMLButtonElement>(null);
  const count = [...text].length;
  const blank = text.trim() === '';
  const tooLong = count > MAX_CHARS;

  const send = async (body: ReplyRequest) => {
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await api<ReplyResponse>('POST', `/admin/leads/${lead.id}/messages`, body);
      const until = answer.pausado_ate ? formatTime(answer.pausado_ate) : null;
      const done = 'template' in body ? t.reply.templateSent(until ?? '') : until ? t.reply.sent(until) : t.reply.sentNoPause;
      setOutcome({ kind: 'ok', text: done });
      if (!('template' in body)) setText('');
      onChanged();
    } catch (failure) {
      const conflict = failure instanceof ApiFailure && failure.status === 409 ? (failure.body as ReplyConflict | null) : null;
      setOutcome(conflict?.reason === 'window' ? { kind: 'window' } : { kind: 'error', text: t.reply.failed(describeFailure(failure)) });
    } finally {
      setBusy(false);
      setAsking(null);
    }
  };
  /** Sends `body`, after the opt-out confirmation when the lead opted out. */
  const request = (body: ReplyRequest) => (lead.optout_at ? setAsking(body) : send(body));
  // The button that opened the dialog gets the focus back once the dialog is gone.
  const returnFocus = useRef<HTMLButtonElement | null>(null);
  useEffect(() => {
    if (asking || !returnFocus.current) return;
    returnFocus.current.focus();
    returnFocus.current = null;
  }, [asking]);
  const opener = (body: ReplyRequest) => ('template' in body ? templateButton : sendButton).current;

  return (
    <section class="reply-box" aria-labelledby="reply-title">
      <h3 id="reply-title">{t.reply.heading}</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!blank && !tooLong && !busy) request({ text });
        }}
      >
        <label class="field">
          <span>{t.reply.label}</span>
          <textarea
            rows={3}
            value={text}
            placeholder={t.reply.placeholder}
            aria-describedby="reply-count"
            onInput={(event) => setText(event.currentTarget.value)}
          />
        </label>
        <p id="reply-count" class={tooLong ? 'reply-count field-error' : 'reply-count muted'} aria-live="polite">
          {tooLong ? t.reply.tooLong(MAX_CHARS) : t.reply.count(count, MAX_CHARS)}
        </p>
        <div class="reply-actions">
          <button ref={sendButton} type="submit" class="button button-primary" disabled={blank || tooLong || busy}>
            {busy ? t.reply.sending : t.reply.send}
          </button>
          <PauseLine lead={lead} busy={busy} setBusy={setBusy} setOutcome={setOutcome} onChanged={onChanged} />
        </div>
      </form>
      <ReplyOutcome outcome={outcome} busy={busy} templateButton={templateButton} onTemplate={() => request({ template: 'follow_up' })} />
      {asking ? (
        <ConfirmDialog
          title={t.reply.optoutTitle}
          text={t.reply.optoutText}
          confirmLabel={t.reply.optoutConfirm}
          busy={busy}
          onConfirm={() => {
            returnFocus.current = opener(asking);
            void send({ ...asking, confirm_optout: true });
          }}
          onCancel={() => {
            returnFocus.current = opener(asking);
            setAsking(null);
          }}
        />
      ) : null}
    </section>
  );
}

/** What the last reply came to: sent, failed, or the closed window with its template button. */
function ReplyOutcome(props: {
  outcome: Outcome;
  busy: boolean;
  templateButton: RefObject<HTMLButtonElement | null>;
  onTemplate: () => void;
}) {
  const { outcome, busy, templateButton, onTemplate } = props;
  if (!outcome) return null;
  if (outcome.kind !== 'window') return <Notice kind={outcome.kind}>{outcome.text}</Notice>;
  return (
    <Notice kind="error">
      {t.reply.windowClosed}{' '}
      <button ref={templateButton} type="button" class="button" disabled={busy} onClick={onTemplate}>
        {t.reply.sendTemplate}
      </button>
    </Notice>
  );
}

/** The agent's pause (until when, or that a reply will cause one) and "Devolver ao agente" (the resume action) while paused. */
function PauseLine(props: {
  lead: LeadDetail;
  busy: boolean;
  setBusy: (busy: boolean) => void;
  setOutcome: (outcome: Outcome) => void;
  onChanged: () => void;
}) {
  const { lead, busy, setBusy, setOutcome, onChanged } = props;
  const paused = lead.state === 'paused' && lead.pausado_ate !== null;
  const resume = async () => {
    setBusy(true);
    try {
      await api<LeadActionResponse>('POST', `/admin/leads/${lead.id}/actions`, { action: 'resume' });
      setOutcome({ kind: 'ok', text: t.reply.givenBack });
      onChanged();
    } catch (failure) {
      setOutcome({ kind: 'error', text: t.common.actionFailed(describeFailure(failure)) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <span class="reply-pause" role="status">
        {paused ? t.reply.pausedUntil(formatTime(lead.pausado_ate)) : t.reply.willPause}
      </span>
      {paused ? (
        <button type="button" class="button" disabled={busy} onClick={resume}>
          {t.reply.giveBack}
        </button>
      ) : null}
    </>
  );
}
