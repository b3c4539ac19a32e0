// An execution's steps as a waterfall: one row per step in the order they ran, each with its status,
// duration, attempts and a bar on a time axis shared by every row (positioned by when the step
// started, relative to the execution's creation, and as long as it lasted; see waterfall-layout.ts
// for the scale and the breaks over long gaps). A step still waiting shows its wake time and an
// open-ended bar. Under each row: the step's input (resolved parameters), output, error and saved
// wait state as JSON text. Bar geometry is set through the CSSOM (style properties), which the
// Content-Security-Policy allows, never as a style attribute in markup.
import type { ExecutionRecord, StepRecord } from '../api/execution-types.js';
import { formatFull } from '../format.js';
import { t } from '../i18n/index.js';
import { executionDurationText, formatSpan } from '../execution-time.js';
import { StatusBadge } from './badges.js';
import { JsonBlock } from './json-block.js';
import { type AxisPiece, type StepSpan, waterfallLayout } from './waterfall-layout.js';
import './waterfall.css';

const wakeTime = new Intl.DateTimeFormat(t.locale, { timeStyle: 'medium' });
const wakeDateTime = new Intl.DateTimeFormat(t.locale, { dateStyle: 'short', timeStyle: 'medium' });

export { formatSpan } from '../execution-time.js';

/** "acorda às HH:MM:SS" today, else "acorda em DD/MM/AAAA HH:MM:SS". */
export function wakeLabel(at: number): string {
  const date = new Date(at);
  return date.toDateString() === new Date().toDateString()
    ? t.execution.wakesAt(wakeTime.format(date))
    : t.execution.wakesOn(wakeDateTime.format(date));
}

/** What an open bar waits for: its wake time, another execution, or the step running now. */
function openLabel(step: StepRecord, span: StepSpan): string {
  if (span.wakeAt !== undefined) return wakeLabel(span.wakeAt);
  return step.status === 'waiting' ? t.execution.waitsForChild : t.execution.running;
}

/** The hatched bands of the axis's breaks, drawn in every track so a cut reads across all rows. */
function Breaks({ pieces }: { pieces: AxisPiece[] }) {
  return (
    <>
      {pieces
        .filter((piece) => piece.cut)
        .map((piece) => (
          <span key={piece.from} class="wf-break" style={{ left: `${piece.x0}%`, width: `${piece.x1 - piece.x0}%` }} />
        ))}
    </>
  );
}

/** Narrowest stretch (percent of the track) whose end gets a label: narrower ones would collide. */
const LABELLED_PERCENT = 20;

/**
 * The axis above the rows: "início" at the left, the time where each scaled stretch ends (before a
 * break, or at the right end), and the breaks as hatched bands on its ruler, each told below in words.
 */
function Axis({ pieces }: { pieces: AxisPiece[] }) {
  const breaks = pieces.filter((piece) => piece.cut);
  const ends = pieces.filter((piece) => !piece.cut && piece.x1 >= LABELLED_PERCENT);
  return (
    <div class="wf-axis">
      <div class="wf-axis-labels" aria-hidden="true">
        <span class="wf-tick wf-tick-start">{t.execution.axisStart}</span>
        {ends.map((piece) => (
          <span key={piece.to} class="wf-tick wf-tick-end" style={{ right: `${100 - piece.x1}%` }}>
            +{formatSpan(piece.to)}
          </span>
        ))}
      </div>
      <div class="wf-axis-ruler" aria-hidden="true">
        <Breaks pieces={pieces} />
      </div>
      {breaks.map((piece) => (
        <p key={piece.from} class="wf-legend muted">
          <span class="wf-legend-swatch" aria-hidden="true" />
          {t.execution.axisBreak(formatSpan(piece.to - piece.from))}
        </p>
      ))}
    </div>
  );
}

function StepRow({ step, span, pieces, ended }: { step: StepRecord; span: StepSpan; pieces: AxisPiece[]; ended: boolean }) {
  const offset = formatSpan(span.start);
  const duration = formatSpan(span.end - span.start);
  const open = span.open ? openLabel(step, span) : undefined;
  const interrupted = ended && step.status === 'waiting';
  return (
    <li class={`step step-${step.status}`}>
      <div class="step-head">
        <span class="step-name">
          <strong>{step.key}</strong> <span class="muted mono">{step.type}</span>
        </span>
        <StatusBadge status={step.status} />
        {open ? <span class="wf-wake">{open}</span> : <span class="muted">{duration}</span>}
        {interrupted ? <span class="muted">{t.execution.neverWoke}</span> : null}
        <span class="muted">{t.execution.attempts(step.attempt)}</span>
        <time class="muted hide-narrow" dateTime={step.started_at}>
          {formatFull(step.started_at)}
        </time>
      </div>
      <div
        class="wf-track"
        role="img"
        aria-label={open ? t.execution.stepBarOpen(step.key, offset, open) : t.execution.stepBar(step.key, offset, duration)}
      >
        <Breaks pieces={pieces} />
        <div class={`wf-bar bar-${step.status}${span.open ? ' wf-open' : ''}`} style={{ left: `${span.left}%`, width: `${span.width}%` }} />
      </div>
      <div class="step-body">
        {step.params !== undefined ? <JsonBlock label={t.execution.stepInput} value={step.params} /> : null}
        {step.output !== undefined ? <JsonBlock label={t.execution.stepOutput} value={step.output} /> : null}
        {step.error ? <JsonBlock label={t.execution.stepError} value={step.error} open /> : null}
        {step.state ? <JsonBlock label={t.execution.stepState} value={step.state} /> : null}
      </div>
    </li>
  );
}

/** The execution's steps as a waterfall (see the header), its times measured at `now` (ms, default the current time) while it runs or waits. */
export function StepList({ execution, now = Date.now() }: { execution: ExecutionRecord; now?: number }) {
  if (execution.steps.length === 0) return <p class="muted">{t.execution.noSteps}</p>;
  const layout = waterfallLayout(execution, now);
  const unfinished = execution.status === 'running' || execution.status === 'waiting';
  return (
    <section class="waterfall" aria-label={t.execution.timeline}>
      <p class="wf-total">{t.execution.total(executionDurationText(execution, now))}</p>
      <Axis pieces={layout.pieces} />
      <ol class="steps">
        {execution.steps.map((step, i) => (
          <StepRow key={step.key} step={step} span={layout.spans[i]!} pieces={layout.pieces} ended={!unfinished} />
        ))}
      </ol>
    </section>
  );
}
