// Meta's webhook verification GET: 200 with the challenge as text/plain for an instance's verify
// token and hub.mode=subscribe; 403 for anything else, reflected text included.
import { describe, expect, it } from 'vitest';
import { verifyCloudSubscription, verifyTokenLookup, verifyTokenMatches } from '../../adapters/gateway/cloud/verification.js';

const tokens = verifyTokenLookup(async () => ['verify-clinic-a', null, '', 'verify-clinic-b']);

describe('verifyCloudSubscription', () => {
  it("echoes the challenge as text/plain when the verify token is an instance's", async () => {
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-clinic-b', 'hub.challenge': '1158201444' };
    expect(await verifyCloudSubscription(query, tokens)).toEqual({ status: 200, body: '1158201444', type: 'text/plain' });
    expect(await verifyCloudSubscription(new URLSearchParams(query), tokens)).toMatchObject({ status: 200, body: '1158201444' });
    expect(
      await verifyCloudSubscription({ hub: { mode: 'subscribe', verify_token: 'verify-clinic-a', challenge: 'abc_DEF-1.2~' } }, tokens),
    ).toMatchObject({ status: 200, body: 'abc_DEF-1.2~' });
  });

  it('403: wrong or missing token, other mode, unsafe or over-long challenge, repeated parameters', async () => {
    const good = { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-clinic-a', 'hub.challenge': '42' };
    const cases: Array<Record<string, unknown> | URLSearchParams> = [
      { ...good, 'hub.verify_token': 'verify-clinic-c' },
      { ...good, 'hub.verify_token': '' },
      { 'hub.mode': 'subscribe', 'hub.challenge': '42' },
      { ...good, 'hub.mode': 'unsubscribe' },
      { ...good, 'hub.challenge': '<script>alert(1)</script>' },
      { ...good, 'hub.challenge': '' },
      { ...good, 'hub.challenge': '9'.repeat(129) },
      { ...good, 'hub.verify_token': ['verify-clinic-a', 'x'] },
      new URLSearchParams('hub.mode=subscribe&hub.verify_token=verify-clinic-a&hub.challenge=1&hub.challenge=2'),
      { ...good, 'hub.verify_token': 'v'.repeat(513) },
    ];
    for (const query of cases) expect(await verifyCloudSubscription(query, tokens)).toEqual({ status: 403 });
  });

  it('does not ask the lookup when the request is malformed anyway', async () => {
    let asked = 0;
    const lookup = async () => {
      asked++;
      return true;
    };
    await verifyCloudSubscription({ 'hub.mode': 'subscribe', 'hub.verify_token': 't', 'hub.challenge': 'a b' }, lookup);
    expect(asked).toBe(0);
    await verifyCloudSubscription({ 'hub.mode': 'subscribe', 'hub.verify_token': 't', 'hub.challenge': 'ab' }, lookup);
    expect(asked).toBe(1);
  });
});

describe('verifyTokenMatches', () => {
  it('equal tokens only; an empty or missing expected token never matches', () => {
    expect(verifyTokenMatches('abc', 'abc')).toBe(true);
    expect(verifyTokenMatches('abc', 'abd')).toBe(false);
    expect(verifyTokenMatches('abc', 'abcd')).toBe(false);
    expect(verifyTokenMatches('', '')).toBe(false);
    expect(verifyTokenMatches('abc', null)).toBe(false);
    expect(verifyTokenMatches('abc', undefined)).toBe(false);
  });
});
