// What a /console/ path that names no page shows: a line saying so and a link to the leads.
import { Link } from '../components/link.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { t } from '../i18n/index.js';
import { href, type PageProps } from '../routes.js';

/** The page for a path no route matches (routes.ts NOT_FOUND). */
export function NotFoundPage({ title }: PageProps) {
  usePageTitle(title());
  return (
    <main class="page">
      <h1>{t.common.notFound}</h1>
      <Link href={href('leads')}>{t.common.goHome}</Link>
    </main>
  );
}
