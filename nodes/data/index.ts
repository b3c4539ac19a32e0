// The node types that read and write stored data: the database (ctx.services.db), the key-value
// store (ctx.services.kv) and the recorded executions (ctx.services.executions).
import { nodeList } from '../../engine/registry.js';
import dbDelete from './db-delete.js';
import dbFind from './db-find.js';
import dbGet from './db-get.js';
import dbInsert from './db-insert.js';
import dbUpdate from './db-update.js';
import dbUpsert from './db-upsert.js';
import debounce from './debounce.js';
import dedupe from './dedupe.js';
import executionsErase from './executions-erase.js';
import kvErase from './kv-erase.js';
import lock from './lock.js';

/** The `db.*` node types: table reads and writes through the host's database service. */
export const dbNodes = nodeList(dbGet, dbFind, dbInsert, dbUpsert, dbUpdate, dbDelete);

/** The node types backed by the key-value store: debounce, dedupe, lock and `kv.erase`. */
export const kvNodes = nodeList(debounce, dedupe, lock, kvErase);

/** Every data node type: the database's, `executions.erase`, then the key-value store's. */
export const dataNodes = nodeList(...dbNodes, executionsErase, ...kvNodes);
