import { describe, expect, it } from 'vitest';
import leadStatusNode, { leadStatus } from '../../nodes/lead/lead-status.js';

const NOW = Date.parse('2026-01-05T12:00:00.000Z');
const row = (fields: Record<string, unknown> = {}) => ({ id: 11, transferido: false, optout_at: null, pausado_ate: null, ...fields });

describe('lead.status (the check agent.yaml and followup.yaml make before writing to a lead)', () => {
  it('a lead free to message: every flag false', () => {
    expect(leadStatus(row(), NOW)).toEqual({ erased: false, transferred: false, opted_out: false, paused: false, gone: false });
  });

  it('no row is erased, and gone', () => {
    expect(leadStatus(null, NOW)).toEqual({ erased: true, transferred: false, opted_out: false, paused: false, gone: true });
    expect(leadStatus(undefined, NOW)).toMatchObject({ erased: true, gone: true });
  });

  it('transferred (any true value, as the database gives it) and opted out are gone', () => {
    expect(leadStatus(row({ transferido: true }), NOW)).toMatchObject({ transferred: true, gone: true });
    expect(leadStatus(row({ transferido: 1 }), NOW)).toMatchObject({ transferred: true, gone: true });
    expect(leadStatus(row({ optout_at: '2026-01-01T13:00:00.000Z' }), NOW)).toMatchObject({ opted_out: true, gone: true });
    expect(leadStatus({ id: 11 }, NOW)).toMatchObject({ transferred: false, opted_out: false, gone: false });
  });

  it('paused only while pausado_ate is in the future; a pause is not gone', () => {
    expect(leadStatus(row({ pausado_ate: '2026-01-05T12:00:00.001Z' }), NOW)).toMatchObject({ paused: true, gone: false });
    expect(leadStatus(row({ pausado_ate: '2026-01-05T12:00:00.000Z' }), NOW)).toMatchObject({ paused: false });
    expect(leadStatus(row({ pausado_ate: '2026-01-05T09:00:00.000-03:00' }), NOW)).toMatchObject({ paused: false });
  });

  it('a pausado_ate that is not a timestamp fails the step', () => {
    expect(() => leadStatus(row({ pausado_ate: 'soon' }), NOW)).toThrow(/pausado_ate "soon" is not an ISO 8601 timestamp/);
  });

  it('the node reads the clock: a pause until 2999 holds now', async () => {
    const out = await leadStatusNode.run({ lead: row({ pausado_ate: '2999-01-01T00:00:00.000Z' }) } as never, {} as never);
    expect(out).toEqual({ erased: false, transferred: false, opted_out: false, paused: true, gone: false });
  });
});
