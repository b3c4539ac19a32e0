// The bar on every signed-in page: the name, a link to each page of the route table with a `nav`
// label (Visão geral, Leads, Agenda, Execuções, Fluxos, in the table's order), and Sair.
import { t } from '../i18n/index.js';
import { href, ROUTES, type Route, type RouteEntry, type RouteName } from '../routes.js';
import { Link } from './link.js';

/** The top bar; the link of the route's section carries aria-current="page". */
export function TopBar({ route, onSignOut }: { route: Route; onSignOut: () => void }) {
  const section = route.name === null ? null : (route.entry.section ?? route.name);
  const links = (Object.entries(ROUTES) as Array<[RouteName, RouteEntry]>).filter(([, entry]) => entry.nav !== undefined);
  return (
    <header class="top-bar">
      <span class="brand">{t.appName}</span>
      <nav aria-label={t.nav.label}>
        {links.map(([name, entry]) => (
          <Link key={name} href={href(name)} class="nav-link" aria-current={section === name ? 'page' : undefined}>
            {entry.nav}
          </Link>
        ))}
      </nav>
      <button type="button" class="button button-quiet sign-out" onClick={onSignOut}>
        {t.nav.signOut}
      </button>
    </header>
  );
}
