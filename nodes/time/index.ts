// The time node types: questions about clinic hours and instants.
import { nodeList } from '../../engine/registry.js';
import hoursCheck from './hours-check.js';

/** The time node types: `hours.check`. */
export const timeNodes = nodeList(hoursCheck);
