import { type Command, Option } from 'commander';
import { UsageError } from '../usage-error.js';
import { openMigratedDatabase } from './migrate.js';

/** The roles `--papel` accepts (console/server/users.ts PAPEIS; repeated here so `--help` loads nothing heavy). */
const PAPEIS = ['admin', 'equipe', 'hunter'];

/** A `--clinica` value: a positive integer id, collected into a list. */
function clinicId(value: string, previous: number[] = []): number[] {
  if (!/^[0-9]{1,15}$/.test(value) || Number(value) < 1)
    throw new UsageError(`--clinica must be a clinic id (a positive integer), got ${JSON.stringify(value)}`);
  return [...previous, Number(value)];
}

/** Runs `work` on the migrated database; an AccountError (a refused change) becomes a UsageError (exit 2, nothing changed). */
async function withAccounts<T>(
  work: (db: Awaited<ReturnType<typeof openMigratedDatabase>>, users: typeof import('../../console/server/users.js')) => Promise<T>,
): Promise<T> {
  const users = await import('../../console/server/users.js');
  const db = await openMigratedDatabase();
  try {
    return await work(db, users);
  } catch (err) {
    if (err instanceof users.AccountError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}

/** The account of `email`, or a UsageError naming it. */
async function byEmail(
  db: Parameters<Parameters<typeof withAccounts>[0]>[0],
  users: typeof import('../../console/server/users.js'),
  email: string,
) {
  const account = await users.accountByEmail(db, email);
  if (!account) throw new UsageError(`no account with email ${users.normalEmail(email)}`);
  return account;
}

/** One line of `users list`: id, email, role, clinics, active or since when disabled, name. */
function listLine(a: {
  id: number;
  email: string;
  papel: string;
  clinica_ids: number[];
  desativado_at: string | null;
  nome: string;
}): string {
  const clinics = a.papel === 'admin' ? 'todas' : a.clinica_ids.join(',');
  const state = a.desativado_at === null ? 'ativa' : `desativada ${a.desativado_at}`;
  return `${String(a.id).padStart(4)}  ${a.email.padEnd(32)}  ${a.papel.padEnd(6)}  clinicas ${clinics.padEnd(8)}  ${state}  ${a.nome}`;
}

/**
 * `leadflow users add|list|disable|reset-password`: the console's accounts (CONTRACT.md §13) in the
 * database of DATABASE_URL (else SQLite under LEADFLOW_DATA_DIR). `add` and `reset-password` print
 * the generated password once (only its hash is stored). A refused change (bad email, unknown clinic,
 * equipe or hunter without `--clinica`, an email taken, no such account) exits 2 and changes nothing.
 */
export function registerUsers(program: Command): void {
  const users = program
    .command('users')
    .description('manage console accounts: add, list, disable, reset-password (roles: admin, equipe, hunter)');
  users
    .command('add')
    .description('create an account and print its generated first password (shown this once)')
    .requiredOption('--email <email>', 'the sign-in email (stored lowercase; one account per email)')
    .requiredOption('--nome <nome>', "the person's name, as the console shows it")
    .addOption(
      new Option('--papel <papel>', "admin: everything; equipe: its clinics' leads; hunter: its clinics' transferred or booked leads")
        .choices(PAPEIS)
        .makeOptionMandatory(),
    )
    .option('--clinica <id>', 'a clinic the account works for (repeat for several; required for equipe and hunter)', clinicId)
    .addHelpText('after', '\nExample:\n  leadflow users add --email maria@clinica.com.br --nome "Maria Souza" --papel equipe --clinica 1')
    .action(async (opts: { email: string; nome: string; papel: string; clinica?: number[] }) => {
      await withAccounts(async (db, u) => {
        const input = { email: opts.email, nome: opts.nome, papel: opts.papel as 'admin', clinica_ids: opts.clinica ?? [] };
        const { account, password } = await u.createAccount(db, input);
        const { recordAudit } = await import('../../console/server/audit.js');
        await recordAudit(db, null, { acao: 'usuario_criado', detalhes: { conta_id: account.id, papel: account.papel, via: 'cli' } });
        process.stdout.write(`created account ${account.id} ${account.email} (${account.papel})\npassword: ${password}\n`);
        process.stderr.write('the password is shown only now: hand it to the person; they can change it under "Minha conta"\n');
      });
    });
  users
    .command('list')
    .description('list every account: id, email, role, clinics, whether it is active, name')
    .action(async () => {
      await withAccounts(async (db, u) => {
        const all = await u.listAccounts(db);
        if (all.length === 0) process.stdout.write('no accounts\n');
        for (const a of all) process.stdout.write(`${listLine(a)}\n`);
      });
    });
  users
    .command('disable')
    .description('disable an account: its sessions end at once, it can no longer sign in')
    .argument('<email>', "the account's email (any case)")
    .action(async (email: string) => {
      await withAccounts(async (db, u) => {
        const account = await u.disableAccount(db, (await byEmail(db, u, email)).id);
        const { recordAudit } = await import('../../console/server/audit.js');
        await recordAudit(db, null, { acao: 'usuario_desativado', detalhes: { conta_id: account.id, papel: account.papel, via: 'cli' } });
        process.stdout.write(`disabled account ${account.id} ${account.email}\n`);
      });
    });
  users
    .command('reset-password')
    .description('give an account a new generated password and print it (shown this once)')
    .argument('<email>', "the account's email (any case)")
    .action(async (email: string) => {
      await withAccounts(async (db, u) => {
        const { account, password } = await u.resetPassword(db, (await byEmail(db, u, email)).id);
        const { recordAudit } = await import('../../console/server/audit.js');
        await recordAudit(db, null, {
          acao: 'usuario_senha_redefinida',
          detalhes: { conta_id: account.id, papel: account.papel, via: 'cli' },
        });
        process.stdout.write(`new password for ${account.email}\npassword: ${password}\n`);
      });
    });
}
