import { Type } from '../../engine/typebox.js';
import { instanceIdParam } from './lib/params.js';
import { instanceClient, recordedCall } from './lib/instance-client.js';
import { defineServiceNode } from '../services.js';

/**
 * `gateway.download`: downloads the medium of a received WhatsApp message through the instance's
 * gateway, whatever its provider; outbound (a dry run records the call and downloads nothing).
 * Media contract: the bytes go into `ctx.services.media` (adapters/gateway/media-cache.ts) and
 * never into the execution: the output carries `media_ref`, a handle the next step (transcribe,
 * describe, read a document) passes to `media.get(ref)` / `media.take(ref)`. The step gives the
 * store the medium's source (instance and gateway reference), so the runtime's store
 * (adapters/gateway/media-store.ts) downloads it again when the handle is read in another process
 * (a take-over after a crash) or after the bytes' 10 minutes in memory, for 24 hours.
 * Which media: the param `media_ref` is the gateway's reference of it, as `gateway.parse` gave it
 * (uazapi and Evolution: the message id; Cloud API: the media id); `message_id` is its older name.
 */
export default defineServiceNode({
  type: 'gateway.download',
  services: ['media', 'gateway', 'instances'],
  description:
    "Downloads the media (audio, image, video, document) of a received WhatsApp message through the instance's gateway, whatever its provider (uazapi: POST {server_url}/message/download), and keeps the bytes in the media cache (in memory) with a note of where they came from (on the key-value store), so another process reading the handle downloads them again. The output holds a `media_ref` handle, never the bytes. In dry-run the call is recorded and nothing is downloaded.",
  outbound: true,
  params: Type.Object(
    {
      instance_id: instanceIdParam(),
      media_ref: Type.String({
        maxLength: 512,
        default: '',
        description:
          "The gateway's reference of the media: `media_ref` of `gateway.parse`'s message (uazapi and Evolution: the message id; Cloud API: the media id). Give it or `message_id`.",
        examples: ['{{ item.media_ref }}', '3EB0A1B2C3D4E5F6A7B8'],
      }),
      message_id: Type.String({
        maxLength: 512,
        default: '',
        description:
          "The older name of `media_ref`, for uazapi: the message's bare WhatsApp id (`messageid` of the inbound event). Used when `media_ref` is empty.",
        examples: ['{{ vars.message.message_id }}'],
      }),
      file_name: Type.String({
        maxLength: 255,
        default: '',
        description:
          'Original file name of a document (`file_name` of the inbound message), kept with the bytes for the converter; empty: none.',
        examples: ['{{ vars.message.file_name }}', 'exame.pdf'],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{mimetype, size, media_ref}` (size in bytes; `transcription` too when the gateway sent one). `media_ref` reads the bytes from `services.media` in any process for 24 hours (downloaded again when not in memory). In dry-run: `{mimetype: null, size: 0, media_ref: null, dry_run: true}`.',
  },
  examples: [
    {
      title: 'Fetch a voice note for transcription',
      step: {
        id: 'audio',
        type: 'gateway.download',
        params: { instance_id: '{{ vars.lead.instancia_id }}', media_ref: '{{ vars.message.media_ref }}' },
      },
    },
  ],
  async run(params, ctx) {
    const ref = params.media_ref || params.message_id;
    if (!ref) throw new TypeError('gateway.download needs media_ref (or message_id): both are empty');
    const media = ctx.services.media;
    const { client } = await instanceClient(ctx.services, params.instance_id);
    const perform = ctx.recordOutbound({ kind: 'gateway', ...recordedCall(client, { op: 'download', media_ref: ref }) });
    if (!perform) return { mimetype: null, size: 0, media_ref: null, dry_run: true };
    const downloaded = await client.downloadMedia(ref, { signal: ctx.signal });
    const source = { instance_id: params.instance_id, media_ref: ref };
    const handle = await media.put(downloaded.bytes, downloaded.mimetype, params.file_name || undefined, source);
    return {
      mimetype: downloaded.mimetype,
      size: downloaded.bytes.length,
      media_ref: handle,
      ...(downloaded.transcription !== undefined ? { transcription: downloaded.transcription } : {}),
    };
  },
});
