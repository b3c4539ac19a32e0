// A lead's transcript (GET /admin/leads/:id/messages, CONTRACT §13): what was said in the lead's
// WhatsApp chat, one bubble per message at the time it was sent or received — the lead on the left;
// the agent, the clinic's people and LeadFlow's fixed texts (reminders, follow-ups, templates) on the
// right, each labelled — events (transfer, pause, opt-out, appointments) as dividers, delivery ticks
// where the provider reported them. Opens scrolled to the newest message and stays live: every
// POLL_MS it asks for the rows after the newest it holds (`?after=`), a plain request any reverse
// proxy passes and any `serve` process answers from the shared database; every FULL_EVERY polls it
// reads the whole transcript again (delivery ticks and a medium's converted text change rows it
// already holds). Texts are rendered as text, never as HTML. A received medium the server can fetch
// again (`midia`) plays or opens in its bubble (transcript-media.tsx), its converted text under it.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptMessage, TranscriptResponse } from '../../server/people-api-types.js';
import { api, describeFailure } from '../api/client.js';
import { formatFull, formatWhen } from '../format.js';
import { t } from '../i18n/index.js';
import { TranscriptMedia } from './transcript-media.js';
import './transcript.css';

/** How often the open transcript asks for new rows, ms. */
export const POLL_MS = 2000;
/** Every how many polls the whole transcript is read again (statuses, converted media). */
const FULL_EVERY = 10;

/** The words of the transcript (console/src/i18n/pt-BR.ts). */
const WORDS = t.transcript;

/** Who a bubble is from, as its label says it. */
function authorLabel(m: TranscriptMessage): string {
  if (m.autor === 'lead') return WORDS.lead;
  if (m.autor === 'agente') return m.tipo === 'modelo' ? `${WORDS.agente} · ${WORDS.modelo}` : WORDS.agente;
  if (m.autor === 'equipe') return m.autor_nome ?? WORDS.equipe;
  const label = m.autor_nome ?? (m.tipo === 'modelo' ? null : WORDS.sistema);
  if (m.tipo === 'modelo') return label ? `${label} · ${WORDS.modelo}` : WORDS.modelo;
  return label ?? WORDS.sistema;
}

/** The delivery ticks of an outgoing message (nothing when the provider reported nothing). */
function Ticks({ status }: { status: TranscriptMessage['status'] }) {
  if (!status) return null;
  const mark = status === 'enviada' ? '✓' : status === 'falhou' ? '⚠' : '✓✓';
  return (
    <span class={`ticks ticks-${status}`} title={WORDS.status[status]}>
      <span aria-hidden="true">{mark}</span>
      <span class="visually-hidden">{WORDS.status[status]}</span>
    </span>
  );
}

/** A bubble's text; a medium's marker alone (`[áudio]`, its text not known yet) as a muted note. */
function BubbleText({ m }: { m: TranscriptMessage }) {
  if (WORDS.media[m.tipo] && /^\[[^\]]*\]$/.test(m.conteudo.trim())) return <p class="tbubble-text muted">{WORDS.mediaPending}</p>;
  return m.conteudo ? <p class="tbubble-text">{m.conteudo}</p> : null;
}

/** One row: an event as a divider, a message as a bubble (a medium playable or openable above its text). */
function Row({ m, leadId }: { m: TranscriptMessage; leadId: number }) {
  if (m.tipo === 'evento') {
    return (
      <li class="transcript-event">
        <span>
          {m.conteudo}
          {' · '}
          <time dateTime={m.created_at} title={formatFull(m.created_at)}>
            {formatWhen(m.created_at)}
          </time>
        </span>
      </li>
    );
  }
  const side = m.direcao === 'entrada' ? 'in' : 'out';
  return (
    <li class={`tbubble tbubble-${side} tbubble-${m.autor}`}>
      <span class="tbubble-author">{authorLabel(m)}</span>
      {WORDS.media[m.tipo] ? <span class="tbubble-media">{WORDS.media[m.tipo]}</span> : null}
      {m.midia ? <TranscriptMedia leadId={leadId} m={m} /> : null}
      <BubbleText m={m} />
      <span class="tbubble-foot">
        <time dateTime={m.created_at} title={formatFull(m.created_at)}>
          {formatWhen(m.created_at)}
        </time>
        {m.direcao === 'saida' ? <Ticks status={m.status} /> : null}
      </span>
    </li>
  );
}

/** Rows by id (a newer copy replaces an older one), in time order. */
function merge(held: TranscriptMessage[], incoming: TranscriptMessage[]): TranscriptMessage[] {
  const byId = new Map(held.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
}

/** The transcript state: rows, whether the lead waits, the last error; polled while mounted. */
function useTranscript(leadId: number, refresh: number) {
  const [messages, setMessages] = useState<TranscriptMessage[] | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const held = useRef<TranscriptMessage[]>([]);
  const polls = useRef(0);
  const poll = useCallback(async () => {
    const full = held.current.length === 0 || polls.current++ % FULL_EVERY === 0;
    const after = full ? '' : `?after=${Math.max(...held.current.map((m) => m.id))}`;
    try {
      const answer = await api<TranscriptResponse>('GET', `/admin/leads/${leadId}/messages${after}`);
      held.current = full ? merge([], answer.messages) : merge(held.current, answer.messages);
      setMessages(held.current);
      setWaiting(answer.aguardando);
      setError(null);
    } catch (failure) {
      setError(describeFailure(failure));
    }
  }, [leadId]);
  useEffect(() => {
    held.current = [];
    polls.current = 0;
    void poll();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void poll();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [poll]);
  // Asked again at once when the page changed the conversation (a reply sent), not at the next tick.
  useEffect(() => {
    if (refresh > 0) void poll();
  }, [refresh]);
  return { messages, waiting, error };
}

/**
 * The lead's transcript, live (see the file's head). `refresh`: a counter the page raises when it
 * changed the conversation itself (a reply sent): the transcript is read again at once.
 */
export function Transcript({ leadId, refresh = 0 }: { leadId: number; refresh?: number }) {
  const { messages, waiting, error } = useTranscript(leadId, refresh);
  const list = useRef<HTMLOListElement>(null);
  const count = useRef(0);
  // Scrolled to the newest message when it opens, and when a new one comes while the reader is at the bottom.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el || !messages) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    if (count.current === 0 || (messages.length > count.current && atBottom)) el.scrollTop = el.scrollHeight;
    count.current = messages.length;
  }, [messages]);
  return (
    <div class="transcript">
      {waiting ? (
        <p class="transcript-waiting" role="status">
          {WORDS.waiting}
        </p>
      ) : null}
      {error ? (
        <p class="muted" role="alert">
          {WORDS.loadError} {error}
        </p>
      ) : null}
      {messages && messages.length === 0 ? <p class="muted">{WORDS.empty}</p> : null}
      <ol class="transcript-list" ref={list} aria-live="polite" aria-label={WORDS.title}>
        {(messages ?? []).map((m) => (
          <Row key={m.id} m={m} leadId={leadId} />
        ))}
      </ol>
    </div>
  );
}
