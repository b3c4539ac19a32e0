// The overview (GET /admin/overview): for one clinic or all, today's and the period's totals, then
// per day, as charts with their numbers in a table beside each: leads (with handoffs and opt-outs),
// appointments (booked, confirmed, attended, no-show and the show rate, by the appointment's day),
// time from the form to the first message (p50 / p95 against the two minutes of rule 1), messages
// of leads and of the agent (follow-ups among them), AI calls (by model in the table) and failed
// executions (by flow). Days are the browser's local days. The clinic and the period live in the URL
// (?clinica=<id | none>&days=); the figures refresh every minute while the tab is visible.
import type { ComponentChildren, JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import type { OverviewFigures, OverviewResponse, OverviewSeries } from '../../server/api-types.js';
import { api, query } from '../api/client.js';
import { type DaySeries, DayChart } from '../components/day-chart.js';
import { LoadError, Loading } from '../components/feedback.js';
import { Link } from '../components/link.js';
import { formatDuration, formatTime } from '../format.js';
import { t } from '../i18n/index.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useRefresh } from '../hooks/use-refresh.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';

const PERIODS = [7, 14, 30];
const DEFAULT_DAYS = 7;
const REFRESH_MS = 60_000;

const numberFormat = new Intl.NumberFormat(t.locale);
const formatCount = (n: number) => numberFormat.format(n);
const percentFormat = new Intl.NumberFormat(t.locale, { style: 'percent', maximumFractionDigits: 0 });
/** A show rate (0..1) as `75%`, `—` when there is none. */
const formatRate = (rate: number | null) => (rate === null ? t.common.none : percentFormat.format(rate));
const formatSeconds = (s: number) => t.overview.seconds(numberFormat.format(s));
const weekdayFormat = new Intl.DateTimeFormat(t.locale, { weekday: 'short', timeZone: 'UTC' });

/** The browser's time zone (the days shown are its local days), or undefined for the server's default. */
function browserZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/** `YYYY-MM-DD` as `dd/MM` (chart axis). */
const shortDay = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}`;
/** `YYYY-MM-DD` as `seg., 24/11` (the weekday left out on narrow screens), or Hoje for the last day (tables). */
function DayName({ date, isToday }: { date: string; isToday: boolean }) {
  if (isToday) return <>{t.overview.today}</>;
  const [y, m, d] = date.split('-').map(Number);
  return (
    <>
      <span class="day-weekday">{weekdayFormat.format(new Date(Date.UTC(y!, (m ?? 1) - 1, d ?? 1)))}, </span>
      {shortDay(date)}
    </>
  );
}

function overviewUrl(clinic: string, days: number): string {
  return href('overview', {}, query({ clinica: clinic, days: days === DEFAULT_DAYS ? undefined : days }));
}

function seriesName(series: OverviewSeries): string {
  if (series.clinica_id === null) return t.overview.noClinic;
  return series.nome ?? t.overview.unnamedClinic(series.clinica_id);
}

/** The overview (`/console/overview`, `?clinica=&days=`). */
export function OverviewPage({ location, title }: PageProps) {
  const clinic = location.search.get('clinica') ?? '';
  const asked = Number(location.search.get('days'));
  const days = PERIODS.includes(asked) ? asked : DEFAULT_DAYS;
  const overview = useResource(() => api<OverviewResponse>('GET', `/admin/overview${query({ days, tz: browserZone() })}`), [days]);
  const { reload } = overview;

  usePageTitle(title());
  useRefresh(reload, REFRESH_MS);

  const data = overview.data;
  const selected = data
    ? clinic === ''
      ? data.all
      : data.clinics.find((c) => (clinic === 'none' ? c.clinica_id === null : String(c.clinica_id) === clinic))
    : undefined;

  return (
    <main class="page overview">
      <h1>{t.overview.heading}</h1>
      <div class="toolbar">
        <label class="field">
          <span>{t.overview.clinicLabel}</span>
          <select value={clinic} onChange={(event) => navigate(overviewUrl(event.currentTarget.value, days), true)}>
            <option value="">{t.overview.allClinics}</option>
            {data?.clinics.map((c) => (
              <option key={c.clinica_id ?? 'none'} value={c.clinica_id === null ? 'none' : String(c.clinica_id)}>
                {seriesName(c)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t.overview.periodLabel}</span>
          <select value={String(days)} onChange={(event) => navigate(overviewUrl(clinic, Number(event.currentTarget.value)), true)}>
            {PERIODS.map((n) => (
              <option key={n} value={String(n)}>
                {t.overview.periodOption(n)}
              </option>
            ))}
          </select>
        </label>
        <div class="toolbar-buttons">
          <button type="button" class="button" onClick={reload} disabled={overview.loading}>
            {t.overview.refresh}
          </button>
        </div>
        {data ? (
          <span class="muted overview-updated" aria-live="off">
            {t.overview.updatedAt(formatTime(data.generated_at))}
          </span>
        ) : null}
      </div>
      {overview.error ? <LoadError error={overview.error} onRetry={reload} /> : null}
      {!data && !overview.error ? <Loading /> : null}
      {data && selected ? <Figures overview={data} series={selected} /> : null}
      {data && !selected ? <p class="muted">{t.common.notFound}</p> : null}
    </main>
  );
}

function Figures({ overview, series }: { overview: OverviewResponse; series: OverviewSeries }) {
  const labels = useMemo(() => overview.dates.map(shortDay), [overview.dates]);
  return (
    <div class="overview-sections">
      <Totals series={series} days={overview.days} />
      <LeadsSection series={series} labels={labels} />
      <AppointmentsSection series={series} labels={labels} />
      <FirstContactSection series={series} labels={labels} limitMs={overview.first_contact_limit_ms} />
      <MessagesSection series={series} labels={labels} />
      <AiSection series={series} labels={labels} days={overview.days} />
      <FailuresSection series={series} labels={labels} days={overview.days} />
    </div>
  );
}

/** p50 / p95 as text, `—` when there is none. */
function firstContactText(f: OverviewFigures['first_contact']): string {
  return f.count === 0 ? t.common.none : t.overview.firstContactValue(formatDuration(f.p50_ms), formatDuration(f.p95_ms));
}

/** Within two minutes (ok) or how many were over it (warning); nothing without first contacts. */
function LimitBadge({ figures }: { figures: OverviewFigures['first_contact'] }) {
  if (figures.count === 0) return null;
  return figures.over_2min === 0 ? (
    <span class="badge status-success">{t.overview.withinLimit}</span>
  ) : (
    <span class="badge status-waiting">{t.overview.overLimit(figures.over_2min)}</span>
  );
}

function Totals({ series, days }: { series: OverviewSeries; days: number }) {
  const aiOf = (f: OverviewFigures) => {
    const calls = f.ai.reduce((sum, m) => sum + m.calls, 0);
    const failures = f.ai.reduce((sum, m) => sum + m.failures, 0);
    return t.overview.aiCallsValue(formatCount(calls), formatCount(failures));
  };
  const failedOf = (f: OverviewFigures) => formatCount(f.failed_executions.reduce((sum, e) => sum + e.count, 0));
  const rows: Array<{ label: string; value: (f: OverviewFigures) => string; badge?: (f: OverviewFigures) => JSX.Element | null }> = [
    { label: t.overview.leadsIn, value: (f) => formatCount(f.leads_in) },
    {
      label: t.overview.firstContact,
      value: (f) => firstContactText(f.first_contact),
      badge: (f) => <LimitBadge figures={f.first_contact} />,
    },
    { label: t.overview.leadMessages, value: (f) => formatCount(f.lead_messages) },
    { label: t.overview.agentReplies, value: (f) => formatCount(f.agent_replies) },
    { label: t.overview.handoffs, value: (f) => formatCount(f.handoffs) },
    { label: t.overview.appointmentsTotal, value: (f) => formatCount(f.appointments.booked) },
    { label: t.overview.showRate, value: (f) => formatRate(f.appointments.show_rate) },
    { label: t.overview.followups, value: (f) => formatCount(f.followups) },
    { label: t.overview.optouts, value: (f) => formatCount(f.optouts) },
    { label: t.overview.aiCalls, value: aiOf },
    { label: t.overview.failedExecutions, value: failedOf },
  ];
  return (
    <section class="card overview-totals" aria-labelledby="overview-totals">
      <h2 id="overview-totals">{t.overview.totals}</h2>
      <table class="table totals-table">
        <caption class="visually-hidden">{t.overview.totalsTable(days)}</caption>
        <thead>
          <tr>
            <th scope="col">{t.overview.figure}</th>
            <th scope="col" class="numeric">
              {t.overview.today}
            </th>
            <th scope="col" class="numeric">
              {t.overview.period(days)}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label}>
              <th scope="row" class="row-head figure-name">
                {row.label}
              </th>
              {[series.today, series.period].map((f, i) => (
                <td key={i} class="numeric figure-cell">
                  <span class="figure-value">{row.value(f)}</span>
                  {row.badge ? <span class="figure-badge">{row.badge(f)}</span> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A chart and, beside it, the table of its numbers (newest day first). */
function ChartSection({
  id,
  title,
  intro,
  chart,
  wideTable,
  children,
}: {
  id: string;
  title: string;
  intro?: string;
  chart: ComponentChildren;
  /** The table below the chart, full width (it has more columns). */
  wideTable?: boolean;
  children: ComponentChildren;
}) {
  return (
    <section class="card chart-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro ? <p class="muted chart-intro">{intro}</p> : null}
      <div class={wideTable ? 'chart-layout chart-layout-even' : 'chart-layout'}>
        <div class="chart-area">{chart}</div>
        <div class="chart-numbers">{children}</div>
      </div>
    </section>
  );
}

interface DayColumn {
  label: string;
  value: (f: OverviewFigures) => string;
}

/** One row per day, newest first (today on top); a long period scrolls inside its box (focusable, so the keyboard scrolls it too). */
function DayTable({
  caption,
  series,
  columns,
  compact,
}: {
  caption: string;
  series: OverviewSeries;
  columns: DayColumn[];
  /** Tighter cells on a phone (a table with five figures). */
  compact?: boolean;
}) {
  const last = series.days.length - 1;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the keyboard focus to be scrolled without a mouse
    <section class="table-wrap day-table-wrap" tabIndex={0} aria-label={caption}>
      <table class={compact ? 'table day-table day-table-compact' : 'table day-table'}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" class="col-head">
              {t.overview.day}
            </th>
            {columns.map((c) => (
              <th key={c.label} scope="col" class="col-head numeric">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {series.days
            .map((day, i) => ({ day, i }))
            .reverse()
            .map(({ day, i }) => (
              <tr key={day.date}>
                <th scope="row" class="row-head">
                  <time dateTime={day.date}>
                    <DayName date={day.date} isToday={i === last} />
                  </time>
                </th>
                {columns.map((c) => (
                  <td key={c.label} class="numeric">
                    {c.value(day)}
                  </td>
                ))}
              </tr>
            ))}
        </tbody>
      </table>
    </section>
  );
}

function LeadsSection({ series, labels }: { series: OverviewSeries; labels: string[] }) {
  const chart = useMemo<DaySeries[]>(
    () => [
      { label: t.overview.leadsIn, kind: 'bars', colour: 'blue', values: series.days.map((d) => d.leads_in) },
      { label: t.overview.handoffs, kind: 'line', colour: 'purple', values: series.days.map((d) => d.handoffs) },
      { label: t.overview.optouts, kind: 'line', colour: 'orange', values: series.days.map((d) => d.optouts) },
    ],
    [series],
  );
  return (
    <ChartSection
      id="overview-leads"
      title={t.overview.leadsChart}
      chart={<DayChart label={t.overview.chartOf(t.overview.leadsChart)} days={labels} series={chart} format={formatCount} />}
    >
      <DayTable
        caption={t.overview.leadsTable}
        series={series}
        columns={[
          { label: t.overview.leadsColumn, value: (f) => formatCount(f.leads_in) },
          { label: t.overview.handoffs, value: (f) => formatCount(f.handoffs) },
          { label: t.overview.optouts, value: (f) => formatCount(f.optouts) },
        ]}
      />
    </ChartSection>
  );
}

function AppointmentsSection({ series, labels }: { series: OverviewSeries; labels: string[] }) {
  const chart = useMemo<DaySeries[]>(
    () => [
      { label: t.overview.booked, kind: 'bars', colour: 'blue', values: series.days.map((d) => d.appointments.booked) },
      { label: t.overview.confirmed, kind: 'line', colour: 'teal', values: series.days.map((d) => d.appointments.confirmed) },
      { label: t.overview.attendedColumn, kind: 'line', colour: 'purple', values: series.days.map((d) => d.appointments.attended) },
      { label: t.overview.noShowColumn, kind: 'line', colour: 'red', values: series.days.map((d) => d.appointments.no_show) },
    ],
    [series],
  );
  return (
    <ChartSection
      id="overview-appointments"
      title={t.overview.appointmentsChart}
      intro={t.overview.appointmentsIntro}
      wideTable
      chart={<DayChart label={t.overview.chartOf(t.overview.appointmentsChart)} days={labels} series={chart} format={formatCount} />}
    >
      <DayTable
        caption={t.overview.appointmentsTable}
        series={series}
        compact
        columns={[
          { label: t.overview.booked, value: (f) => formatCount(f.appointments.booked) },
          { label: t.overview.confirmed, value: (f) => formatCount(f.appointments.confirmed) },
          { label: t.overview.attendedColumn, value: (f) => formatCount(f.appointments.attended) },
          { label: t.overview.noShowColumn, value: (f) => formatCount(f.appointments.no_show) },
          { label: t.overview.showRateColumn, value: (f) => formatRate(f.appointments.show_rate) },
        ]}
      />
    </ChartSection>
  );
}

function FirstContactSection({ series, labels, limitMs }: { series: OverviewSeries; labels: string[]; limitMs: number }) {
  const chart = useMemo<DaySeries[]>(() => {
    const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
    return [
      { label: t.overview.p50, kind: 'line', colour: 'blue', values: series.days.map((d) => seconds(d.first_contact.p50_ms)) },
      { label: t.overview.p95, kind: 'line', colour: 'purple', values: series.days.map((d) => seconds(d.first_contact.p95_ms)) },
      { label: t.overview.limit, kind: 'line', colour: 'red', dashed: true, values: series.days.map(() => limitMs / 1000) },
    ];
  }, [series, limitMs]);
  return (
    <ChartSection
      id="overview-first-contact"
      title={t.overview.firstContactChart}
      intro={t.overview.firstContactIntro}
      chart={<DayChart label={t.overview.chartOf(t.overview.firstContactChart)} days={labels} series={chart} format={formatSeconds} />}
    >
      <DayTable
        caption={t.overview.firstContactTable}
        series={series}
        columns={[
          { label: t.overview.p50, value: (f) => (f.first_contact.count ? formatDuration(f.first_contact.p50_ms) : t.common.none) },
          { label: t.overview.p95, value: (f) => (f.first_contact.count ? formatDuration(f.first_contact.p95_ms) : t.common.none) },
          { label: t.overview.sent, value: (f) => formatCount(f.first_contact.count) },
          { label: t.overview.overTwoMinutes, value: (f) => formatCount(f.first_contact.over_2min) },
        ]}
      />
    </ChartSection>
  );
}

function MessagesSection({ series, labels }: { series: OverviewSeries; labels: string[] }) {
  const chart = useMemo<DaySeries[]>(
    () => [
      { label: t.overview.fromLeads, kind: 'bars', colour: 'teal', values: series.days.map((d) => d.lead_messages) },
      { label: t.overview.fromAgent, kind: 'bars', colour: 'blue', values: series.days.map((d) => d.agent_replies) },
      { label: t.overview.followupsColumn, kind: 'line', colour: 'orange', values: series.days.map((d) => d.followups) },
    ],
    [series],
  );
  return (
    <ChartSection
      id="overview-messages"
      title={t.overview.messagesChart}
      chart={<DayChart label={t.overview.chartOf(t.overview.messagesChart)} days={labels} series={chart} format={formatCount} />}
    >
      <DayTable
        caption={t.overview.messagesTable}
        series={series}
        columns={[
          { label: t.overview.fromLeads, value: (f) => formatCount(f.lead_messages) },
          { label: t.overview.fromAgent, value: (f) => formatCount(f.agent_replies) },
          { label: t.overview.followupsColumn, value: (f) => formatCount(f.followups) },
        ]}
      />
    </ChartSection>
  );
}

function AiSection({ series, labels, days }: { series: OverviewSeries; labels: string[]; days: number }) {
  const chart = useMemo<DaySeries[]>(
    () => [
      {
        label: t.overview.aiCallsSeries,
        kind: 'bars',
        colour: 'blue',
        values: series.days.map((d) => d.ai.reduce((s, m) => s + m.calls, 0)),
      },
      {
        label: t.overview.aiFailuresSeries,
        kind: 'line',
        colour: 'red',
        values: series.days.map((d) => d.ai.reduce((s, m) => s + m.failures, 0)),
      },
    ],
    [series],
  );
  return (
    <ChartSection
      id="overview-ai"
      title={t.overview.aiChart}
      chart={<DayChart label={t.overview.chartOf(t.overview.aiChart)} days={labels} series={chart} format={formatCount} />}
    >
      {series.period.ai.length === 0 ? (
        <p class="muted">{t.overview.noAi}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="visually-hidden">{t.overview.aiTable(days)}</caption>
            <thead>
              <tr>
                <th scope="col" class="col-head">
                  {t.overview.model}
                </th>
                <th scope="col" class="col-head numeric">
                  {t.overview.aiCalls}
                </th>
                <th scope="col" class="col-head numeric">
                  {t.overview.tokens}
                </th>
              </tr>
            </thead>
            <tbody>
              {series.period.ai.map((m) => (
                <tr key={m.model}>
                  <th scope="row" class="row-head model-name">
                    {m.model}
                  </th>
                  <td class="numeric">{t.overview.aiCallsValue(formatCount(m.calls), formatCount(m.failures))}</td>
                  <td class="numeric">{t.overview.tokensValue(formatCount(m.input_tokens), formatCount(m.output_tokens))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </ChartSection>
  );
}

function FailuresSection({ series, labels, days }: { series: OverviewSeries; labels: string[]; days: number }) {
  const chart = useMemo<DaySeries[]>(
    () => [
      {
        label: t.overview.failedExecutions,
        kind: 'bars',
        colour: 'red',
        values: series.days.map((d) => d.failed_executions.reduce((s, e) => s + e.count, 0)),
      },
    ],
    [series],
  );
  const today = new Map(series.today.failed_executions.map((e) => [e.flow, e.count]));
  return (
    <ChartSection
      id="overview-failed"
      title={t.overview.failedChart}
      chart={<DayChart label={t.overview.chartOf(t.overview.failedChart)} days={labels} series={chart} format={formatCount} />}
    >
      {series.period.failed_executions.length === 0 ? (
        <p class="muted">{t.overview.noFailures}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="visually-hidden">{t.overview.failedTable(days)}</caption>
            <thead>
              <tr>
                <th scope="col" class="col-head">
                  {t.overview.flow}
                </th>
                <th scope="col" class="col-head numeric">
                  {t.overview.today}
                </th>
                <th scope="col" class="col-head numeric">
                  {t.overview.period(days)}
                </th>
              </tr>
            </thead>
            <tbody>
              {series.period.failed_executions.map((e) => (
                <tr key={e.flow}>
                  <th scope="row" class="row-head">
                    <Link href={href('executions', {}, query({ flow: e.flow, status: 'failed' }))}>{e.flow}</Link>
                  </th>
                  <td class="numeric">{formatCount(today.get(e.flow) ?? 0)}</td>
                  <td class="numeric">{formatCount(e.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </ChartSection>
  );
}
