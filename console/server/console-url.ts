// LEADFLOW_CONSOLE_URL, the console's public address that flows put in messages (the Hunter's handoff
// notification links to the lead's page: `<LEADFLOW_CONSOLE_URL>/leads/<id>`).
//
// Set explicitly, it is used as given (trailing slashes dropped). Otherwise it is derived as
// `<PUBLIC_BASE_URL>/console` when both PUBLIC_BASE_URL and LEADFLOW_ADMIN_TOKEN are set (the console
// is served only with the token), and left unset otherwise: no link rather than a link to a 404.

/** The console's public address for this environment, or undefined when there is none. */
export function consoleUrlOf(env: Record<string, string | undefined>): string | undefined {
  const explicit = env.LEADFLOW_CONSOLE_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, '');
  const base = env.PUBLIC_BASE_URL?.trim();
  if (!base || !env.LEADFLOW_ADMIN_TOKEN) return undefined;
  return `${base.replace(/\/+$/, '')}/console`;
}

/** `env` with LEADFLOW_CONSOLE_URL filled in when consoleUrlOf finds one (a copy; `env` is not changed). */
export function withConsoleUrl(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const url = consoleUrlOf(env);
  return url ? { ...env, LEADFLOW_CONSOLE_URL: url } : env;
}
