// Delivery statuses as each provider reports them (adapters/gateway/delivery-statuses.ts): parsed
// from the webhook bodies, never going back, written to the transcript rows of the message they name.
import { describe, expect, it } from 'vitest';
import {
  advances,
  cloudDeliveryReports,
  evolutionDeliveryReports,
  recordDeliveryReports,
  uazapiDeliveryReports,
} from '../../adapters/gateway/delivery-statuses.js';

describe('delivery statuses', () => {
  it('reads Cloud statuses, uazapi message updates and Evolution messages.update', () => {
    const cloud = {
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                statuses: [
                  { id: 'wamid.A', status: 'delivered' },
                  { id: 'wamid.B', status: 'read' },
                  { id: 'wamid.C', status: 'deleted' },
                ],
              },
            },
          ],
        },
      ],
    };
    expect(cloudDeliveryReports(cloud)).toEqual([
      { messageid: 'wamid.A', status: 'entregue' },
      { messageid: 'wamid.B', status: 'lida' },
    ]);
    expect(uazapiDeliveryReports({ EventType: 'messages_update', event: { MessageIDs: ['3EB0A', '3EB0B'], Type: 'Delivered' } })).toEqual([
      { messageid: '3EB0A', status: 'entregue' },
      { messageid: '3EB0B', status: 'entregue' },
    ]);
    expect(uazapiDeliveryReports({ EventType: 'messages', message: { messageid: 'x' } })).toEqual([]);
    expect(evolutionDeliveryReports({ event: 'messages.update', data: { keyId: '3EB0C', status: 'READ' } })).toEqual([
      { messageid: '3EB0C', status: 'lida' },
    ]);
    expect(evolutionDeliveryReports({ event: 'messages.update', data: [{ key: { id: '3EB0D' }, status: 'ERROR' }] })).toEqual([
      { messageid: '3EB0D', status: 'falhou' },
    ]);
    expect(evolutionDeliveryReports({ event: 'messages.upsert', data: { keyId: 'x', status: 'READ' } })).toEqual([]);
    expect(cloudDeliveryReports(null)).toEqual([]);
  });

  it('never goes back: read stays read after a late delivered; failed replaces only sent', () => {
    expect(advances(null, 'enviada')).toBe(true);
    expect(advances('enviada', 'entregue')).toBe(true);
    expect(advances('lida', 'entregue')).toBe(false);
    expect(advances('enviada', 'falhou')).toBe(true);
    expect(advances('entregue', 'falhou')).toBe(false);
  });

  it('updates the outgoing rows of the message it names', async () => {
    const rows: Record<string, unknown>[] = [{ id: 1, status: 'enviada' }];
    const updates: unknown[] = [];
    const db = {
      find: async (_table: string, options: any) => (options.where.provider_message_id === 'm1' ? rows : []),
      update: async (_table: string, where: any, values: any) => {
        updates.push([where, values]);
        return { count: 1, rows: [] };
      },
    };
    await recordDeliveryReports(db as any, [
      { messageid: 'm1', status: 'lida' },
      { messageid: 'other', status: 'lida' },
    ]);
    expect(updates).toEqual([[{ id: 1 }, { status: 'lida' }]]);
  });
});
