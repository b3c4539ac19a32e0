// The control-flow node types and the plain HTTP call: what every flow can use, whatever the host
// provides (none of them needs a host service).
import { nodeList } from '../../engine/registry.js';
import callFlow from './call-flow.js';
import flowCancel from './flow-cancel.js';
import flowStart from './flow-start.js';
import foreach from './foreach.js';
import httpRequest from './http-request.js';
import ifNode from './if.js';
import parallel from './parallel.js';
import respond from './respond.js';
import set from './set.js';
import stop from './stop.js';
import stopIf from './stop-if.js';
import switchNode from './switch.js';
import wait from './wait.js';

/** The core node types: branching, loops, waits, stops, answers, other flows, and `http.request`. */
export const coreNodes = nodeList(
  set,
  ifNode,
  switchNode,
  foreach,
  parallel,
  wait,
  stop,
  stopIf,
  respond,
  callFlow,
  flowStart,
  flowCancel,
  httpRequest,
);
