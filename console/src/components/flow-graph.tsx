// A flow's graph as SVG (laid out by ../flow-layout.ts): nodes shaped by kind (trigger and end as
// pills, if / switch pointed, parallel with fork bars, foreach and its body framed, stop in red, a join
// as a dot), edges with arrows and branch labels (error edges dotted, loop edges dashed), foreach
// bodies as framed groups. Step nodes are buttons: Tab reaches them in reading order, Enter or Space
// (or a click) selects one. Zoom buttons scale the drawing; the frame scrolls, and drags pan it.
// Every text is an SVG text node (never HTML); no inline <style> (the CSP forbids it).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { FlowGraphEdgeView, FlowGraphGroupView, FlowGraphNodeView, FlowGraphView } from '../../server/api-types.js';
import {
  FONT,
  type FlowLayout,
  LINE_HEIGHT,
  layoutFlow,
  type NodeLine,
  type PlacedEdge,
  type PlacedNode,
  type Point,
} from '../flow-layout.js';
import { t } from '../i18n/index.js';

/** What FlowGraph draws and how it reports a selection; the label callbacks should be stable (useCallback), the layout is recomputed when they change. */
export interface FlowGraphProps {
  graph: FlowGraphView;
  /** The flow's name (the graph's accessible name). */
  name: string;
  linesOf: (node: FlowGraphNodeView) => NodeLine[];
  edgeLabel: (edge: FlowGraphEdgeView) => string | undefined;
  groupLabel: (group: FlowGraphGroupView) => string;
  /** The selected step's id, or null. */
  selected: string | null;
  onSelect: (step: string) => void;
}

const ZOOM_MIN = 0.3;
const ZOOM_MAX = 2;
const ZOOM_STEP = 1.25;
/** Smallest zoom the first view picks to fit the frame's width: below it text is too small to read. */
const FIRST_VIEW_MIN = 0.85;

let canvas: HTMLCanvasElement | null = null;

/** Width of `text` in the page's font at `size` px (canvas metrics; a rough estimate without a canvas). */
function measure(text: string, size: number, bold: boolean): number {
  canvas ??= document.createElement('canvas');
  const context = canvas.getContext('2d');
  if (!context) return text.length * size * 0.62;
  context.font = `${bold ? '600 ' : ''}${size}px ${getComputedStyle(document.body).fontFamily}`;
  return context.measureText(text).width;
}

/** The flow's graph as SVG in a zoomable, draggable frame; selecting a step node calls `onSelect` with its step id. */
export function FlowGraph({ graph, name, linesOf, edgeLabel, groupLabel, selected, onSelect }: FlowGraphProps) {
  const layout = useMemo(() => layoutFlow({ graph, linesOf, edgeLabel, groupLabel, measure }), [graph, linesOf, edgeLabel, groupLabel]);
  const frame = useRef<HTMLElement>(null);
  const [zoom, setZoom] = useState<number | null>(null);

  // The first view: the whole width when it fits at a readable size (at most 100 %), else FIRST_VIEW_MIN and scroll.
  useLayoutEffect(() => {
    const width = frame.current?.clientWidth ?? layout.width;
    setZoom(Math.min(1, Math.max(FIRST_VIEW_MIN, width / Math.max(layout.width, 1))));
  }, [layout]);

  // A step selected from the address (a shared link) is brought into view once.
  const revealed = useRef(false);
  useEffect(() => {
    if (revealed.current || zoom === null || !selected) return;
    revealed.current = true;
    const box = frame.current;
    const node = box?.querySelector<SVGGElement>(`[data-step="${CSS.escape(selected)}"]`);
    if (!box || !node) return;
    // Scrolls the frame only (scrollIntoView would scroll the page too).
    const at = node.getBoundingClientRect();
    const view = box.getBoundingClientRect();
    box.scrollLeft += at.left + at.width / 2 - (view.left + view.width / 2);
    box.scrollTop += at.top + at.height / 2 - (view.top + view.height / 2);
  }, [zoom, selected]);

  const pan = usePan(frame);
  const scale = zoom ?? 1;
  // Fitting never enlarges past 100 %: a narrow flow stays at its size.
  const fitWidth = () => setZoom(clampZoom(Math.min(1, (frame.current?.clientWidth ?? layout.width) / Math.max(layout.width, 1))));
  return (
    <div class="flow-graph">
      <fieldset class="graph-tools">
        <legend class="visually-hidden">{t.flows.zoom}</legend>
        <button type="button" class="button" onClick={() => setZoom(clampZoom(scale / ZOOM_STEP))} aria-label={t.flows.zoomOut}>
          −
        </button>
        <span class="zoom-level" aria-live="polite">
          {t.flows.zoomLevel(Math.round(scale * 100))}
        </span>
        <button type="button" class="button" onClick={() => setZoom(clampZoom(scale * ZOOM_STEP))} aria-label={t.flows.zoomIn}>
          +
        </button>
        <button type="button" class="button" onClick={fitWidth}>
          {t.flows.fit}
        </button>
        <button type="button" class="button" onClick={() => setZoom(1)}>
          {t.flows.actualSize}
        </button>
      </fieldset>
      <section class="graph-frame" ref={frame} aria-label={t.flows.graphLabel(name)} {...pan}>
        <svg
          class="graph-svg"
          width={Math.ceil(layout.width * scale)}
          height={Math.ceil(layout.height * scale)}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
        >
          <title>{t.flows.graphLabel(name)}</title>
          <Markers />
          <Groups layout={layout} />
          <g class="edges">
            {layout.edges.map((placed, index) => (
              <Edge key={index} placed={placed} />
            ))}
          </g>
          <Groups layout={layout} titles />
          <g class="nodes">
            {layout.nodes.map((placed) => (
              <Node
                key={placed.node.id}
                placed={placed}
                selected={placed.node.step !== undefined && placed.node.step === selected}
                onSelect={onSelect}
              />
            ))}
          </g>
        </svg>
      </section>
    </div>
  );
}

function clampZoom(value: number): number {
  return Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, value));
}

/** Dragging the frame's background with a mouse scrolls it (touch screens scroll it natively). */
function usePan(frame: { current: HTMLElement | null }) {
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  return {
    onPointerDown: (event: PointerEvent) => {
      const target = event.target as Element;
      if (event.pointerType !== 'mouse' || event.button !== 0 || target.closest('.node-step') || !frame.current) return;
      drag.current = { x: event.clientX, y: event.clientY, left: frame.current.scrollLeft, top: frame.current.scrollTop };
      frame.current.setPointerCapture(event.pointerId);
      frame.current.classList.add('is-panning');
    },
    onPointerMove: (event: PointerEvent) => {
      const start = drag.current;
      if (!start || !frame.current) return;
      frame.current.scrollLeft = start.left - (event.clientX - start.x);
      frame.current.scrollTop = start.top - (event.clientY - start.y);
    },
    onPointerUp: (event: PointerEvent) => {
      if (!drag.current || !frame.current) return;
      drag.current = null;
      frame.current.releasePointerCapture(event.pointerId);
      frame.current.classList.remove('is-panning');
    },
  };
}

function Markers() {
  return (
    <defs>
      {(['normal', 'error', 'loop'] as const).map((kind) => (
        <marker
          key={kind}
          id={`lf-arrow-${kind}`}
          class={`arrow arrow-${kind}`}
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" />
        </marker>
      ))}
    </defs>
  );
}

/** The frames of the foreach bodies (drawn under the edges), or their titles (`titles`, drawn over them). */
function Groups({ layout, titles = false }: { layout: FlowLayout; titles?: boolean }) {
  return (
    <g class={titles ? 'group-titles' : 'groups'}>
      {layout.groups.map((placed) => {
        const left = placed.x - placed.width / 2;
        const top = placed.y - placed.height / 2;
        if (!titles)
          return (
            <g key={placed.group.id} class="group">
              <rect x={left} y={top} width={placed.width} height={placed.height} rx="10" />
            </g>
          );
        // The title sits on the frame's top edge, on a plate, over the edges crossing it.
        return (
          <g key={placed.group.id} class="group">
            <rect class="group-plate" x={left + 8} y={top - 8} width={placed.labelWidth + 12} height="16" rx="4" />
            <text x={left + 14} y={top} font-size={FONT.group} dominant-baseline="central">
              {placed.label}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** A path through `points` with its corners rounded (radius up to 10, at most half of each segment). */
function roundedPath(points: Point[]): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  let d = `M ${first!.x} ${first!.y}`;
  for (let i = 0; i < rest.length; i++) {
    const here = rest[i]!;
    const next = rest[i + 1];
    const prev = points[i]!;
    if (!next) {
      d += ` L ${here.x} ${here.y}`;
      break;
    }
    const r = Math.min(10, distance(prev, here) / 2, distance(here, next) / 2);
    const a = toward(here, prev, r);
    const b = toward(here, next, r);
    d += ` L ${a.x} ${a.y} Q ${here.x} ${here.y} ${b.x} ${b.y}`;
  }
  return d;
}

function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

/** The point `r` from `from` toward `to`. */
function toward(from: Point, to: Point, r: number): Point {
  const length = distance(from, to) || 1;
  return { x: from.x + ((to.x - from.x) * r) / length, y: from.y + ((to.y - from.y) * r) / length };
}

function Edge({ placed }: { placed: PlacedEdge }) {
  const { edge, label } = placed;
  return (
    <g class={`edge edge-${edge.kind}`} data-from={edge.from} data-to={edge.to}>
      <path d={roundedPath(placed.points)} marker-end={`url(#lf-arrow-${edge.kind})`} />
      {label ? (
        <g class="edge-label">
          <rect x={label.x - label.width / 2} y={label.y - label.height / 2} width={label.width} height={label.height} rx="4" />
          <text x={label.x} y={label.y} font-size={FONT.edge} text-anchor="middle" dominant-baseline="central">
            {label.text}
          </text>
        </g>
      ) : null}
    </g>
  );
}

/** The outline of a node: pills for trigger, end and stop; pointed sides for if / switch; a dot for a join. */
function Shape({ placed }: { placed: PlacedNode }) {
  const { width: w, height: h, node } = placed;
  const left = -w / 2;
  const top = -h / 2;
  switch (node.kind) {
    case 'join':
      return <circle r={w / 2} />;
    case 'trigger':
    case 'end':
    case 'stop':
      return <rect x={left} y={top} width={w} height={h} rx={h / 2} />;
    case 'if':
    case 'switch': {
      const tip = 14;
      return (
        <polygon points={`${left},0 ${left + tip},${top} ${-left - tip},${top} ${-left},0 ${-left - tip},${-top} ${left + tip},${-top}`} />
      );
    }
    case 'parallel':
      return (
        <>
          <rect x={left} y={top} width={w} height={h} rx="4" />
          <path class="fork-bar" d={`M ${left + 6} ${top + 3} H ${-left - 6} M ${left + 6} ${-top - 3} H ${-left - 6}`} />
        </>
      );
    default:
      return <rect x={left} y={top} width={w} height={h} rx="6" />;
  }
}

function Node({ placed, selected, onSelect }: { placed: PlacedNode; selected: boolean; onSelect: (step: string) => void }) {
  const { node, lines } = placed;
  const step = node.step;
  const textHeight = lines.reduce((sum, l) => sum + LINE_HEIGHT[l.style], 0);
  let y = -textHeight / 2;
  const texts = lines.map((line, index) => {
    const at = y + LINE_HEIGHT[line.style] / 2;
    y += LINE_HEIGHT[line.style];
    return (
      <text
        key={index}
        class={`line-${line.style}`}
        data-code={line.code ? '' : undefined}
        x="0"
        y={at}
        font-size={FONT[line.style]}
        text-anchor="middle"
        dominant-baseline="central"
      >
        {line.text}
      </text>
    );
  });
  const classes = `node node-${node.kind}${step !== undefined ? ' node-step' : ''}${selected ? ' is-selected' : ''}`;
  const transform = `translate(${placed.x} ${placed.y})`;
  if (step === undefined)
    return (
      <g class={classes} transform={transform}>
        <Shape placed={placed} />
        {node.kind === 'join' ? <title>{lines.map((l) => l.text).join(' ')}</title> : texts}
      </g>
    );
  const select = () => onSelect(step);
  return (
    // biome-ignore lint/a11y/useSemanticElements: SVG has no <button>; a focusable <g role="button"> is the accessible equivalent
    <g
      class={classes}
      transform={transform}
      data-step={step}
      role="button"
      tabindex={0}
      aria-pressed={selected}
      aria-label={t.flows.nodeLabel(step, node.type ?? '')}
      data-code-label=""
      onClick={select}
      onKeyDown={(event: KeyboardEvent) => {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        select();
      }}
    >
      <Shape placed={placed} />
      {texts}
    </g>
  );
}
