// The console's pages: one entry per page, the only place a page is declared. An entry gives
//   pattern  its path under /console (`:name` a parameter, `:id(\d+)` one with a constraint)
//   page     its component (./pages/), which gets PageProps
//   title    the browser tab's title: from the parameters, and for a page about one record the name
//            the page passes once it has loaded it (null: leave the title as it is)
//   nav      its label in the top bar, in table order (top-level pages only)
//   section  for a page under another (a lead under the leads), the top-bar entry it lights
// Links are built from the same patterns (href). /console/ is the HOME page; a path no entry
// matches shows NOT_FOUND. The server answers index.html for every page path (console/server/spa.ts).
// Pages import href from here while this file imports the pages: they call it only while rendering,
// after every module has loaded, so the cycle is harmless; nothing here may run page code at load.
import type { FunctionComponent } from 'preact';
import { t } from './i18n/index.js';
import { tp } from './i18n/people.js';
import { AccountPage } from './pages/account.js';
import { AgendaPage } from './pages/agenda.js';
import { AuditPage } from './pages/audit.js';
import { ExecutionPage } from './pages/execution.js';
import { ExecutionsPage } from './pages/executions.js';
import { FlowPage } from './pages/flow.js';
import { FlowsPage } from './pages/flows.js';
import { LeadPage } from './pages/lead.js';
import { LeadsPage } from './pages/leads.js';
import { NotFoundPage } from './pages/not-found.js';
import { OverviewPage } from './pages/overview.js';
import { PeoplePage } from './pages/people.js';
import { fillPattern, type Location, matchPattern, type Params } from './router.js';

/** What the shell (app.tsx) gives every page. */
export interface PageProps {
  /** The route's parameters (`id` of `/leads/:id`), decoded. */
  params: Params;
  location: Location;
  /** This page's title from its entry; `subject` is the record the page names in it (a lead's name). */
  title: (subject?: string | null) => string | null;
  /** A notice set for this page by another (e.g. "Lead excluído." after erasing a lead), or null. */
  notice: string | null;
  /** Shows `text` as the notice of the page at `pathname` (usually the next one); leaving it drops it. */
  showNotice: (text: string, pathname: string) => void;
}

/** One page of the table. */
export interface RouteEntry {
  /** The path under /console, e.g. `/leads/:id(\d+)`. */
  pattern: string;
  page: FunctionComponent<PageProps>;
  /** The tab's title; `subject` as in PageProps.title. */
  title: (params: Params, subject?: string | null) => string | null;
  /** The top bar's label for this page, when it has a link there. */
  nav?: string;
  /** The name (in ROUTES) of the top-bar entry lit while this page shows; default: its own. */
  section?: string;
}

/** Every page, in the top bar's order. */
export const ROUTES = {
  overview: { pattern: '/overview', page: OverviewPage, title: () => t.titles.overview, nav: t.nav.overview },
  leads: { pattern: '/leads', page: LeadsPage, title: () => t.titles.leads, nav: t.nav.leads },
  lead: {
    pattern: '/leads/:id(\\d+)',
    page: LeadPage,
    title: (_params, name) => t.titles.lead(name || t.leads.unnamed),
    section: 'leads',
  },
  agenda: { pattern: '/agenda', page: AgendaPage, title: () => t.titles.agenda, nav: t.nav.agenda },
  executions: { pattern: '/executions', page: ExecutionsPage, title: () => t.titles.executions, nav: t.nav.executions },
  execution: {
    pattern: '/executions/:id',
    page: ExecutionPage,
    title: (_params, flow) => (flow ? t.titles.execution(flow) : null),
    section: 'executions',
  },
  flows: { pattern: '/flows', page: FlowsPage, title: () => t.titles.flows, nav: t.nav.flows },
  flow: { pattern: '/flows/:name', page: FlowPage, title: ({ name }) => t.titles.flow(name ?? ''), section: 'flows' },
  audit: { pattern: '/audit', page: AuditPage, title: () => t.titles.audit, nav: t.nav.audit },
  people: { pattern: '/pessoas', page: PeoplePage, title: () => tp.titles.people, nav: tp.nav.people },
  account: { pattern: '/conta', page: AccountPage, title: () => tp.titles.account },
} satisfies Record<string, RouteEntry>;

/** The sections only admins (and the token) use: the top bar hides them from equipe and hunter accounts (the server refuses them with 403 anyway). */
export const ADMIN_SECTIONS: ReadonlySet<string> = new Set(['executions', 'flows', 'people', 'audit']);

/** A page's name in the table. */
export type RouteName = keyof typeof ROUTES;

/** The page of /console/ itself. */
export const HOME: RouteName = 'leads';

/** What a path no entry matches shows. */
export const NOT_FOUND: RouteEntry = { pattern: '', page: NotFoundPage, title: () => t.titles.notFound };

/** The page a pathname shows: its name (null for NOT_FOUND), its entry and its parameters. */
export interface Route {
  name: RouteName | null;
  entry: RouteEntry;
  params: Params;
}

/** The route of `pathname` (with or without the /console prefix). */
export function routeOf(pathname: string): Route {
  if (matchPattern('/', pathname)) return { name: HOME, entry: ROUTES[HOME], params: {} };
  for (const [name, entry] of Object.entries(ROUTES) as Array<[RouteName, RouteEntry]>) {
    const params = matchPattern(entry.pattern, pathname);
    if (params) return { name, entry, params };
  }
  return { name: null, entry: NOT_FOUND, params: {} };
}

/** The URL of page `name` with `params` (numbers as digits), followed by `search` (`?…` or ''). */
export function href(name: RouteName, params: Record<string, string | number> = {}, search = ''): string {
  const text = Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)]));
  return fillPattern(ROUTES[name].pattern, text, search);
}
