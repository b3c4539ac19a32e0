// The console's route table (console/src/routes.ts): which page each /console/ path shows, with which
// parameters, the links built from the same patterns, each page's tab title and the top bar's entries.
import { describe, expect, it } from 'vitest';
import { HOME, href, NOT_FOUND, ROUTES, type RouteEntry, type RouteName, routeOf } from '../../console/src/routes.js';

/** Page `name`'s title for `params` and `subject`. */
const titleOf = (name: RouteName, params: Record<string, string> = {}, subject?: string | null) =>
  (ROUTES[name] as RouteEntry).title(params, subject);

describe('routeOf', () => {
  it.each([
    ['/console', 'leads', {}],
    ['/console/', 'leads', {}],
    ['/console/leads', 'leads', {}],
    ['/console/leads/', 'leads', {}],
    ['/console/leads/12', 'lead', { id: '12' }],
    ['/console/executions', 'executions', {}],
    ['/console/executions/a%2Fb', 'execution', { id: 'a/b' }],
    ['/console/flows', 'flows', {}],
    ['/console/flows/agent', 'flow', { name: 'agent' }],
    ['/console/overview', 'overview', {}],
    ['/leads/7', 'lead', { id: '7' }],
  ])('%s shows %s', (path, name, params) => {
    const route = routeOf(path);
    expect(route.name).toBe(name);
    expect(route.params).toEqual(params);
  });

  it.each(['/console/leads/abc', '/console/leads/1/2', '/console/nope', '/console/overview/x'])('%s matches no page', (path) => {
    const route = routeOf(path);
    expect(route.name).toBeNull();
    expect(route.entry).toBe(NOT_FOUND);
  });

  it('/console/ is the leads page', () => {
    expect(HOME).toBe('leads');
  });
});

describe('href', () => {
  it('builds the pages’ URLs from their patterns, parameters encoded', () => {
    expect(href('leads')).toBe('/console/leads');
    expect(href('leads', {}, '?clinica=3')).toBe('/console/leads?clinica=3');
    expect(href('lead', { id: 12 })).toBe('/console/leads/12');
    expect(href('executions', {}, '?lead=5511')).toBe('/console/executions?lead=5511');
    expect(href('execution', { id: 'a/b c' })).toBe('/console/executions/a%2Fb%20c');
    expect(href('flows')).toBe('/console/flows');
    expect(href('flow', { name: 'agent' }, '?step=parts')).toBe('/console/flows/agent?step=parts');
    expect(href('overview')).toBe('/console/overview');
  });

  it('round-trips through routeOf for every page', () => {
    const params: Record<RouteName, Record<string, string>> = {
      overview: {},
      leads: {},
      lead: { id: '42' },
      agenda: {},
      executions: {},
      execution: { id: 'x y/z' },
      flows: {},
      flow: { name: 'follow-up' },
      audit: {},
      people: {},
      account: {},
    };
    for (const name of Object.keys(ROUTES) as RouteName[]) {
      const route = routeOf(href(name, params[name]));
      expect([route.name, route.params]).toEqual([name, params[name]]);
    }
  });
});

describe('titles and the top bar', () => {
  it('gives each page its tab title', () => {
    expect(titleOf('overview')).toBe('Visão geral · LeadFlow');
    expect(titleOf('leads')).toBe('Leads · LeadFlow');
    expect(titleOf('lead', { id: '1' }, 'Ana')).toBe('Ana · LeadFlow');
    expect(titleOf('lead', { id: '1' }, null)).toBe('Sem nome · LeadFlow');
    expect(titleOf('executions')).toBe('Execuções · LeadFlow');
    expect(titleOf('execution', { id: 'x' }, 'agent')).toBe('Execução de agent · LeadFlow');
    expect(titleOf('execution', { id: 'x' })).toBeNull();
    expect(titleOf('flows')).toBe('Fluxos · LeadFlow');
    expect(titleOf('flow', { name: 'agent' })).toBe('Fluxo agent · LeadFlow');
    expect(titleOf('audit')).toBe('Auditoria · LeadFlow');
    expect(NOT_FOUND.title({})).toBe('Página não encontrada · LeadFlow');
  });

  it('lists Visão geral, Leads, Agenda, Execuções, Fluxos, Auditoria and Pessoas in the top bar; a record’s page lights its list', () => {
    const entries = Object.entries(ROUTES).filter(([, entry]) => 'nav' in entry);
    expect(entries.map(([name, entry]) => [name, (entry as { nav: string }).nav])).toEqual([
      ['overview', 'Visão geral'],
      ['leads', 'Leads'],
      ['agenda', 'Agenda'],
      ['executions', 'Execuções'],
      ['flows', 'Fluxos'],
      ['audit', 'Auditoria'],
      ['people', 'Pessoas'],
    ]);
    expect([ROUTES.lead.section, ROUTES.execution.section, ROUTES.flow.section]).toEqual(['leads', 'executions', 'flows']);
  });
});
