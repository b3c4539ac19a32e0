// The messaging node types: the WhatsApp gateway's inbound events, sends and media.
import { nodeList } from '../../engine/registry.js';
import gatewayDownload from './gateway-download.js';
import gatewayForget from './gateway-forget.js';
import gatewayParse from './gateway-parse.js';
import gatewaySend from './gateway-send.js';
import transcriptRecord from './transcript-record.js';

/** The `gateway.*` node types: parse an inbound event, send, download a medium, forget a lead; `transcript.record` writes the lead's transcript. */
export const messagingNodes = nodeList(gatewayParse, gatewaySend, gatewayDownload, gatewayForget, transcriptRecord);
