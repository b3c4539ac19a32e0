// The bar on every signed-in page: the name, a link to each page of the route table with a `nav`
// label (Visão geral, Leads, Agenda, Execuções, Fluxos, Pessoas, in the table's order; the admins'
// sections (ADMIN_SECTIONS) only for admins and the token), who is signed in (a link to Minha conta),
// and Sair.
import { signedInAsAdmin, signedInUser } from '../api/client.js';
import { t } from '../i18n/index.js';
import { tp } from '../i18n/people.js';
import { ADMIN_SECTIONS, href, ROUTES, type Route, type RouteEntry, type RouteName } from '../routes.js';
import { Link } from './link.js';

/** The top bar; the link of the route's section carries aria-current="page". */
export function TopBar({ route, onSignOut }: { route: Route; onSignOut: () => void }) {
  const section = route.name === null ? null : (route.entry.section ?? route.name);
  const admin = signedInAsAdmin();
  const user = signedInUser();
  const links = (Object.entries(ROUTES) as Array<[RouteName, RouteEntry]>).filter(
    ([name, entry]) => entry.nav !== undefined && (admin || !ADMIN_SECTIONS.has(name)),
  );
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
      <Link href={href('account')} class="nav-link who" aria-current={section === 'account' ? 'page' : undefined}>
        {user ? tp.nav.signedInAs(user.nome) : tp.nav.tokenUser}
      </Link>
      <button type="button" class="button button-quiet sign-out" onClick={onSignOut}>
        {t.nav.signOut}
      </button>
    </header>
  );
}
