// The db.* node types, for nodes/index.ts to register.
import type { NodeDefinition } from '../../engine/types.js';
import dbDelete from './db-delete.js';
import dbFind from './db-find.js';
import dbGet from './db-get.js';
import dbInsert from './db-insert.js';
import dbUpdate from './db-update.js';
import dbUpsert from './db-upsert.js';

export const dbNodes: NodeDefinition[] = [dbGet, dbFind, dbInsert, dbUpsert, dbUpdate, dbDelete] as unknown as NodeDefinition[];
