// The bar on every signed-in page: the name, links to Visão geral, Leads, Execuções and Fluxos, and Sair.
import { t } from '../i18n/index.js';
import { paths, type Route } from '../router.js';
import { Link } from './link.js';

export function TopBar({ route, onSignOut }: { route: Route; onSignOut: () => void }) {
  const inLeads = route.name === 'leads' || route.name === 'lead';
  const inExecutions = route.name === 'executions' || route.name === 'execution';
  const inFlows = route.name === 'flows' || route.name === 'flow';
  return (
    <header class="top-bar">
      <span class="brand">{t.appName}</span>
      <nav aria-label={t.nav.label}>
        <Link href={paths.overview()} class="nav-link" aria-current={route.name === 'overview' ? 'page' : undefined}>
          {t.nav.overview}
        </Link>
        <Link href={paths.leads()} class="nav-link" aria-current={inLeads ? 'page' : undefined}>
          {t.nav.leads}
        </Link>
        <Link href={paths.executions()} class="nav-link" aria-current={inExecutions ? 'page' : undefined}>
          {t.nav.executions}
        </Link>
        <Link href={paths.flows()} class="nav-link" aria-current={inFlows ? 'page' : undefined}>
          {t.flows.nav}
        </Link>
      </nav>
      <button type="button" class="button button-quiet sign-out" onClick={onSignOut}>
        {t.nav.signOut}
      </button>
    </header>
  );
}
