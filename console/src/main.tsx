// Entry point: the stylesheet (bundled to assets/app-<hash>.css) and the app mounted on #app.
import './styles.css';
import './agenda.css';
import './people.css';
import { render } from 'preact';
import { App } from './app.js';
import { t } from './i18n/index.js';

document.documentElement.lang = t.locale;
const root = document.getElementById('app');
if (root) render(<App />, root);
