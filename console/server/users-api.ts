// The Pessoas API (CONTRACT.md §13), admin only (the token or an `admin` account; the role guard of
// routes.ts answers 403 to anyone else before these run). Bodies: people-api-types.ts.
//   GET  /admin/users                      200 UsersResponse (every account, by id; never a hash)
//   POST /admin/users {email, nome, papel, clinica_ids?}
//                                          201 UserPasswordResponse (the generated password, once);
//                                          422 a bad field (`details[0].path` names it), 409 the email taken
//   POST /admin/users/:id/disable          200 {user} (again: unchanged); 404 no such account
//   POST /admin/users/:id/reset-password   200 UserPasswordResponse; 404 no such account
// Each change writes its audit row (usuario_criado, usuario_desativado, usuario_senha_redefinida)
// with the account's id and papel in `detalhes`. An admin cannot disable its own account (422): the
// console would lock itself out.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import { enforceJsonLimits } from '../../engine/triggers/json-limits.js';
import { sendError } from '../../engine/triggers/webhook-pipeline.js';
import { recordAudit } from './audit.js';
import { sendApiError, sendInvalid } from './lead-rows.js';
import type { UserCreateRequest, UserPasswordResponse, UsersResponse } from './people-api-types.js';
import { isAdmin, principalOf } from './principal.js';
import { AccountError, createAccount, disableAccount, listAccounts, resetPassword, toSummary } from './users.js';

const json = [express.json({ limit: '4kb' }), enforceJsonLimits(sendError, (req) => req.body)];

/** 403 for anyone but the token and `admin` accounts (executions, flows, accounts, the global audit). */
export const adminOnly: RequestHandler = (_req, res, next) => {
  if (isAdmin(principalOf(res))) return next();
  sendApiError(res, 403, 'apenas administradores podem usar esta parte do console');
};

/** Runs an account change, answering an AccountError with its status (422 with the field's path). */
function handled(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (!(err instanceof AccountError)) throw err;
      if (err.status === 422) return sendInvalid(res, 'dados inválidos', [{ path: err.path, message: err.message }]);
      sendApiError(res, err.status, err.message);
    }
  };
}

function pathId(req: Request): number {
  const raw = String(req.params.id ?? '');
  const id = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : 0;
  if (id < 1) throw new AccountError(422, 'id', 'deve ser um número inteiro positivo');
  return id;
}

/** Adds the accounts routes (see the header) to the admin router, behind `adminOnly`. */
export function mountUsers(router: Router, db: Database): void {
  router.use('/users', adminOnly);
  router.get('/users', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json({ users: (await listAccounts(db)).map(toSummary) } satisfies UsersResponse);
  });
  router.post(
    '/users',
    ...json,
    handled(async (req, res) => {
      const body = req.body as UserCreateRequest | undefined;
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw new AccountError(422, '(body)', 'envie {email, nome, papel, clinica_ids}');
      const { account, password } = await createAccount(db, body);
      await recordAudit(db, principalOf(res), { acao: 'usuario_criado', detalhes: { conta_id: account.id, papel: account.papel } });
      res.set('Cache-Control', 'no-store');
      res.status(201).json({ user: toSummary(account), password } satisfies UserPasswordResponse);
    }),
  );
  router.post(
    '/users/:id/disable',
    handled(async (req, res) => {
      const id = pathId(req);
      const me = principalOf(res);
      if (me.kind === 'user' && me.id === id) throw new AccountError(422, 'id', 'você não pode desativar a sua própria conta');
      const account = await disableAccount(db, id);
      await recordAudit(db, me, { acao: 'usuario_desativado', detalhes: { conta_id: account.id, papel: account.papel } });
      res.json({ user: toSummary(account) });
    }),
  );
  router.post(
    '/users/:id/reset-password',
    handled(async (req, res) => {
      const { account, password } = await resetPassword(db, pathId(req));
      await recordAudit(db, principalOf(res), {
        acao: 'usuario_senha_redefinida',
        detalhes: { conta_id: account.id, papel: account.papel },
      });
      res.set('Cache-Control', 'no-store');
      res.json({ user: toSummary(account), password } satisfies UserPasswordResponse);
    }),
  );
}
