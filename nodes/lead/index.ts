// Lead-domain node types: the few steps of the lead flows (intake, agent, handoff) YAML cannot say
// cleanly.
import { nodeList } from '../../engine/registry.js';
import aiAgent from './ai-agent.js';
import budgetClassify from './budget-band.js';
import contentHash from './content-hash.js';
import formNormalize from './form-normalize.js';
import handoffNotification from './handoff-notification.js';
import leadStatus from './lead-status.js';
import phoneInList from './phone-in-list.js';
import phoneNormalize from './phone-normalize.js';
import textIsOneOf from './text-is-one-of.js';
import textSplit from './text-split.js';

/** The lead node types: phones and texts, the intake's form steps, the agent, the handoff message. */
export const leadNodes = nodeList(
  phoneNormalize,
  phoneInList,
  textSplit,
  textIsOneOf,
  leadStatus,
  formNormalize,
  budgetClassify,
  contentHash,
  aiAgent,
  handoffNotification,
);
