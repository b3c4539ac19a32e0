// Every migration, imported statically so they run the same from dist/ and from the TypeScript
// sources (vitest). Names sort in the order they apply; never rename or edit an applied one, add one.
import type { Knex } from 'knex';
import * as contractTables from './001_contract_tables.js';
import * as executions from './002_executions.js';
import * as executionLeases from './003_execution_leases.js';
import * as kvSlots from './004_kv_slots.js';
import * as executionErasures from './005_execution_erasures.js';
import * as flowVersions from './006_flow_versions.js';
import * as executionKeys from './007_execution_keys.js';
import * as scheduleTicks from './008_schedule_ticks.js';
import * as conversationCare from './009_conversation_care.js';
import * as activity from './010_activity.js';
import * as gatewayProviders from './011_gateway_providers.js';
import * as executionJournal from './012_execution_journal.js';
import * as unanswered from './013_unanswered.js';
import * as booking from './014_booking.js';
import * as reminders from './015_reminders.js';
import * as consolePeople from './016_console_people.js';
import * as transcriptMedia from './017_transcript_media.js';
import * as partialExecutionIndexes from './018_partial_execution_indexes.js';

const MIGRATIONS: Record<string, Knex.Migration> = {
  '001_contract_tables': contractTables,
  '002_executions': executions,
  '003_execution_leases': executionLeases,
  '004_kv_slots': kvSlots,
  '005_execution_erasures': executionErasures,
  '006_flow_versions': flowVersions,
  '007_execution_keys': executionKeys,
  '008_schedule_ticks': scheduleTicks,
  '009_conversation_care': conversationCare,
  '010_activity': activity,
  '011_gateway_providers': gatewayProviders,
  '012_execution_journal': executionJournal,
  '013_unanswered': unanswered,
  '014_booking': booking,
  '015_reminders': reminders,
  '016_console_people': consolePeople,
  '017_transcript_media': transcriptMedia,
  '018_partial_execution_indexes': partialExecutionIndexes,
};

/**
 * The migrations in the bundle, by name, applied in name order (001 first); knex records each applied
 * name in MIGRATIONS_TABLE.
 */
export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return Object.keys(MIGRATIONS).sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name) {
    const migration = MIGRATIONS[name];
    if (!migration) throw new Error(`unknown migration ${name}`);
    return migration;
  },
};

/** Names of the tables that record applied migrations (and its lock). */
export const MIGRATIONS_TABLE = 'leadflow_migrations';
