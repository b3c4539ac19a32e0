// A small chart of figures per day, drawn by uPlot on a canvas: one x position per day (labels as
// given, oldest first), each series as bars (side by side when there are two) or a line (dashed for
// a limit, e.g. the two minutes of rule 1). The y axis starts at 0. Colours come from the CSS
// custom properties `--chart-<colour>` (styles.css), so the legend below the chart, drawn in HTML
// with the same classes, matches. The canvas is an image for assistive technology (`role="img"`,
// labelled); its numbers are in the table the page shows beside it. uPlot only sets element styles
// through the DOM (allowed by the CSP `default-src 'self'`), never inline style text.
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** A series colour: the CSS custom property `--chart-<colour>` (styles.css) and the legend's `swatch-<colour>` class. */
export type ChartColour = 'blue' | 'teal' | 'orange' | 'purple' | 'red' | 'grey';

/** One series of a DayChart: a value per day, drawn as bars or a line. */
export interface DaySeries {
  label: string;
  /** One value per day; null: no value that day (a gap in a line, no bar). */
  values: Array<number | null>;
  kind: 'bars' | 'line';
  colour: ChartColour;
  /** A dashed line (a limit). */
  dashed?: boolean;
}

interface DayChartProps {
  /** What the chart shows, for screen readers (role="img"). */
  label: string;
  /** One label per day, oldest first. */
  days: string[];
  series: DaySeries[];
  /** Text of a y-axis value. */
  format: (value: number) => string;
  /** Canvas height, CSS pixels. Default 220. */
  height?: number;
}

/** Smallest space between two day labels on the x axis, CSS pixels. */
const LABEL_SPACE = 52;
/** Y-axis steps: whole numbers only (counts, seconds). */
const INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 2.5e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7];

/** The chart's colours: CSS custom properties of the element, with fallbacks when a stylesheet lacks them. */
interface ChartPalette {
  /** A series colour by name (`--chart-<name>`). */
  colour: (name: string) => string;
  /** Axis labels (`--muted`). */
  muted: string;
  /** Grid lines (`--border`). */
  grid: string;
}

function paletteOf(element: HTMLElement): ChartPalette {
  const css = getComputedStyle(element);
  return {
    colour: (name) => css.getPropertyValue(`--chart-${name}`).trim() || '#2f5fd0',
    muted: css.getPropertyValue('--muted').trim() || '#5f6b7a',
    grid: css.getPropertyValue('--border').trim() || '#d9dee5',
  };
}

/** uPlot's series for `series`: bars side by side when there are two, lines with points on short periods. */
function seriesOptions(series: DaySeries[], n: number, palette: ChartPalette): uPlot.Series[] {
  const bars = series.filter((s) => s.kind === 'bars');
  return series.map((s): uPlot.Series => {
    const stroke = palette.colour(s.colour);
    if (s.kind === 'bars') {
      const side = bars.length > 1 ? (bars.indexOf(s) === 0 ? -1 : 1) : 0;
      return {
        label: s.label,
        stroke,
        fill: stroke,
        width: 0,
        points: { show: false },
        paths: uPlot.paths.bars!({ size: [bars.length > 1 ? 0.36 : 0.6, 48], align: side as -1 | 0 | 1 }),
      };
    }
    return {
      label: s.label,
      stroke,
      width: 2,
      spanGaps: false,
      points: { show: !s.dashed && n <= 14, size: 6, fill: stroke },
      ...(s.dashed ? { dash: [6, 4] } : {}),
    };
  });
}

/** uPlot's axes: days below (today always labelled, the others as space allows), whole-number values on the left. */
function axesOptions(days: string[], format: (value: number) => string, palette: ChartPalette): uPlot.Axis[] {
  const n = days.length;
  return [
    {
      stroke: palette.muted,
      grid: { show: false },
      ticks: { show: false },
      splits: (u) => {
        const fit = Math.max(1, Math.floor(u.bbox.width / uPlot.pxRatio / LABEL_SPACE));
        const every = Math.max(1, Math.ceil(n / fit));
        return days.map((_, i) => i).filter((i) => (n - 1 - i) % every === 0);
      },
      values: (_u, splits) => splits.map((i) => days[i] ?? ''),
    },
    {
      stroke: palette.muted,
      grid: { stroke: palette.grid, width: 1 },
      ticks: { show: false },
      incrs: INCREMENTS,
      size: 56,
      values: (_u, splits) => splits.map((v) => format(v)),
    },
  ];
}

/** Draws the chart into `element` at its width, following its resizes; returns what removes it. */
function drawChart(element: HTMLElement, { days, series, format, height = 220 }: DayChartProps): () => void {
  const palette = paletteOf(element);
  const n = days.length;
  const width = () => Math.max(220, Math.floor(element.clientWidth));
  const options: uPlot.Options = {
    width: width(),
    height,
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: { time: false, range: [-0.5, n - 0.5] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
    },
    axes: axesOptions(days, format, palette),
    series: [{}, ...seriesOptions(series, n, palette)],
  };
  const xs = days.map((_, i) => i);
  const chart = new uPlot(options, [xs, ...series.map((s) => s.values)] as uPlot.AlignedData, element);
  const resize = new ResizeObserver(() => {
    if (width() !== chart.width) chart.setSize({ width: width(), height });
  });
  resize.observe(element);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}

/** A chart of figures per day with its legend; redrawn when its days, series, format or height change. */
export function DayChart({ label, days, series, format, height = 220 }: DayChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    return drawChart(element, { label, days, series, format, height });
  }, [days, series, format, height]);

  return (
    <figure class="day-chart">
      <div ref={box} class="day-chart-canvas" role="img" aria-label={label} />
      <figcaption class="chart-legend">
        {series.map((s) => (
          <span key={s.label} class="chart-legend-item">
            <span
              class={`swatch swatch-${s.colour}${s.kind === 'line' ? ' swatch-line' : ''}${s.dashed ? ' swatch-dashed' : ''}`}
              aria-hidden="true"
            />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
