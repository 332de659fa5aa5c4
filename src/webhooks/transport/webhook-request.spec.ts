import { createHmac } from 'node:crypto';
import {
  bodyExcerpt,
  deliveryHeaders,
  isStalePooledSocket,
  RequestState,
  RESPONSE_BODY_LIMIT_BYTES,
} from './webhook-request';

const delivery = {
  url: 'https://hooks.example/in',
  secrets: ['whsec_new', 'whsec_old'],
  event: 'listing.sold',
  deliveryId: '00000000-0000-4000-8000-000000000001',
  payload: '{"title":"Cykel på gården"}',
};

describe('deliveryHeaders: what an attempt sends', () => {
  const headers = deliveryHeaders(delivery, '1900000000', 30);

  it('names the event, the delivery and the timestamp under both header families', () => {
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'Content-Length': 30,
      'User-Agent': 'ListingsService-Webhooks/1',
      'X-Service-Event': 'listing.sold',
      'X-Service-Delivery': delivery.deliveryId,
      'X-Service-Timestamp': '1900000000',
      'webhook-id': delivery.deliveryId,
      'webhook-timestamp': '1900000000',
    });
  });

  it('signs with every live secret, newest first, in both signature kinds', () => {
    const expected = createHmac('sha256', 'whsec_new')
      .update(`1900000000.${delivery.payload}`, 'utf8')
      .digest('hex');
    const service = String(headers['X-Service-Signature']).split(',');
    expect(service).toHaveLength(2);
    expect(service[0]).toBe(`sha256=${expected}`);
    const standard = String(headers['webhook-signature']).split(' ');
    expect(standard).toHaveLength(2);
    standard.forEach((signature) => expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/));
  });

  it('an endpoint with one secret sends one signature of each kind', () => {
    const one = deliveryHeaders({ ...delivery, secrets: ['whsec_only'] }, '1900000000', 30);
    expect(String(one['X-Service-Signature'])).not.toContain(',');
    expect(String(one['webhook-signature'])).not.toContain(' ');
  });

  it('the signature covers the timestamp: another timestamp signs differently', () => {
    const later = deliveryHeaders(delivery, '1900000001', 30);
    expect(later['X-Service-Signature']).not.toBe(headers['X-Service-Signature']);
    expect(later['webhook-signature']).not.toBe(headers['webhook-signature']);
  });
});

describe('isStalePooledSocket: which request errors are sent once more on a new connection', () => {
  const pooledBeforeAnswer: RequestState = { reusedSocket: true, answered: false, aborted: false };

  it.each(['ECONNRESET', 'EPIPE'])(
    '%s on a reused socket before any answer: sent again on a new connection',
    (code) => expect(isStalePooledSocket({ code }, pooledBeforeAnswer)).toBe(true),
  );

  it('the same reset on a new connection is the attempt’s failure', () => {
    const fresh = { ...pooledBeforeAnswer, reusedSocket: false };
    expect(isStalePooledSocket({ code: 'ECONNRESET' }, fresh)).toBe(false);
  });

  it('a reset after the answer began is the attempt’s failure (the receiver got the request)', () => {
    const answered = { ...pooledBeforeAnswer, answered: true };
    expect(isStalePooledSocket({ code: 'ECONNRESET' }, answered)).toBe(false);
  });

  it('an error after the time-out fired is never sent again', () => {
    const aborted = { ...pooledBeforeAnswer, aborted: true };
    expect(isStalePooledSocket({ code: 'ECONNRESET' }, aborted)).toBe(false);
  });

  it.each([['ECONNREFUSED'], ['ETIMEDOUT'], [undefined]])(
    'any other error (%s) on a reused socket is the attempt’s failure',
    (code) => expect(isStalePooledSocket({ code }, pooledBeforeAnswer)).toBe(false),
  );
});

describe('bodyExcerpt: what is kept of an answer', () => {
  it('a body in several chunks is joined', () => {
    expect(bodyExcerpt([Buffer.from('{"ok":'), Buffer.from('true}')])).toBe('{"ok":true}');
  });

  it('no body is an empty excerpt', () => {
    expect(bodyExcerpt([])).toBe('');
  });

  it('a body over the limit is cut at the limit', () => {
    const big = Buffer.alloc(RESPONSE_BODY_LIMIT_BYTES + 10, 'a');
    const excerpt = bodyExcerpt([big.subarray(0, 1000), big.subarray(1000)]);
    expect(excerpt).toHaveLength(RESPONSE_BODY_LIMIT_BYTES);
  });

  it('a body exactly at the limit is kept whole', () => {
    const exact = Buffer.alloc(RESPONSE_BODY_LIMIT_BYTES, 'b');
    expect(bodyExcerpt([exact])).toBe(exact.toString('utf8'));
  });

  it('the limit counts bytes: a cut through a multi-byte character leaves a replacement mark', () => {
    const body = Buffer.concat([
      Buffer.alloc(RESPONSE_BODY_LIMIT_BYTES - 1, 'a'),
      Buffer.from('å'),
    ]);
    const excerpt = bodyExcerpt([body]);
    expect(excerpt.endsWith('a\uFFFD')).toBe(true);
  });
});
