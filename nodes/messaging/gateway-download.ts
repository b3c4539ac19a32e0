import { Type } from '@sinclair/typebox';
import { instanceIdParam } from './params.js';
import { instanceClient } from './instance-client.js';
import { defineServiceNode } from '../services.js';

// Media contract: the bytes go into `ctx.services.media` (adapters/gateway/media-cache.ts) and
// never into the execution: the output carries `media_ref`, a handle the next step (transcribe,
// describe, read a document) passes to `media.get(ref)` / `media.take(ref)`. The handle lives 10
// minutes by default and only in this process: put no `wait` between the download and its consumer.

export default defineServiceNode({
  type: 'gateway.download',
  services: ['media', 'gateway', 'instances'],
  description:
    "Downloads the media (audio, image, video, document) of a received WhatsApp message through the instance's uazapi gateway (POST {server_url}/message/download) and keeps the bytes in the in-process media cache. The output holds a `media_ref` handle, never the bytes. In dry-run the call is recorded and nothing is downloaded.",
  outbound: true,
  params: Type.Object(
    {
      instance_id: instanceIdParam(),
      message_id: Type.String({
        minLength: 1,
        description: "The message's bare WhatsApp id (`messageid` of the inbound event).",
        examples: ['{{ vars.message.message_id }}', '3EB0A1B2C3D4E5F6A7B8'],
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
      '`{mimetype, size, media_ref}` (size in bytes; `transcription` too when the gateway sent one). `media_ref` reads the bytes from `services.media` for about 10 minutes, in this process only. In dry-run: `{mimetype: null, size: 0, media_ref: null, dry_run: true}`.',
  },
  examples: [
    {
      title: 'Fetch a voice note for transcription',
      step: {
        id: 'audio',
        type: 'gateway.download',
        params: { instance_id: '{{ vars.lead.instancia_id }}', message_id: '{{ vars.message.message_id }}' },
      },
    },
  ],
  async run(params, ctx) {
    const media = ctx.services.media;
    const { client } = await instanceClient(ctx.services, params.instance_id);
    const perform = ctx.recordOutbound({
      kind: 'gateway',
      method: 'POST',
      url: `${client.serverUrl}/message/download`,
      headers: { token: '***', 'content-type': 'application/json' },
      body: { id: params.message_id, return_base64: true, return_link: false },
    });
    if (!perform) return { mimetype: null, size: 0, media_ref: null, dry_run: true };
    const downloaded = await client.downloadMedia(params.message_id, { signal: ctx.signal });
    const ref = media.put(downloaded.bytes, downloaded.mimetype, params.file_name || undefined);
    return {
      mimetype: downloaded.mimetype,
      size: downloaded.bytes.length,
      media_ref: ref,
      ...(downloaded.transcription !== undefined ? { transcription: downloaded.transcription } : {}),
    };
  },
});
