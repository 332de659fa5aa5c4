import { EVENT_NAMES, payloadProblems } from '../../src/events/event-types';
import { ExpiryService } from '../../src/listings/expiry/expiry.service';
import { admin, anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Events are built in TypeScript (checked by the compiler against EventPayloads) and in SQL (the
 * create statement, the expiry sweep), which no compiler sees. Every path that writes an event
 * runs here, and every outbox row it wrote must match EVENT_FIELDS exactly: the same keys, each
 * value of its kind.
 */
describe('Event payloads: every writer against the one description', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const live = () => as(t, seller.liveKey);
  const create = async (body = aListing().build()) =>
    (await live().post('/v1/listings').send(body).expect(201)).body.data;

  /**
   * Runs `act` and returns the events it wrote, in order, after checking each against its
   * description; events written while a path set itself up are not counted.
   */
  async function written(act: () => Promise<unknown>): Promise<string[]> {
    const [{ last }] = await t.dataSource.query(
      'SELECT coalesce(max(seq), 0) AS last FROM outbox_events WHERE account_id = $1',
      [seller.id],
    );
    await act();
    const rows: { event: string; data: Record<string, unknown> }[] = await t.dataSource.query(
      'SELECT event, data FROM outbox_events WHERE account_id = $1 AND seq > $2 ORDER BY seq',
      [seller.id, last],
    );
    expect(rows.flatMap((row) => payloadProblems(row.event, row.data))).toEqual([]);
    return rows.map((row) => row.event);
  }

  const withGallery = () => create(aListing().withImages(2).build());

  const PATHS: { path: string; events: string[]; run: () => Promise<string[]> }[] = [
    {
      path: 'POST /v1/listings, with a gallery',
      events: ['listing.created'],
      run: () => written(() => create(aListing().withExternalId('pay-1').withImages(2).build())),
    },
    {
      path: 'PATCH /v1/listings/:id',
      events: ['listing.updated'],
      run: async () => {
        const l = await create();
        return written(() =>
          live().patch(`/v1/listings/${l.id}`).send({ price: 1234 }).expect(200),
        );
      },
    },
    {
      path: 'POST /v1/listings/:id/renew',
      events: ['listing.updated'],
      run: async () => {
        const l = await create();
        return written(() => live().post(`/v1/listings/${l.id}/renew`).expect(200));
      },
    },
    {
      path: 'POST /v1/listings/:id/images',
      events: ['listing.updated'],
      run: async () => {
        const l = await withGallery();
        return written(() =>
          live()
            .post(`/v1/listings/${l.id}/images`)
            .send({ url: 'https://img.example.com/added.jpg' })
            .expect(201),
        );
      },
    },
    {
      path: 'PATCH /v1/listings/:id/images/reorder',
      events: ['listing.updated'],
      run: async () => {
        const l = await withGallery();
        const [first, second] = l.images;
        return written(() =>
          live()
            .patch(`/v1/listings/${l.id}/images/reorder`)
            .send({ imageIds: [second.id, first.id] })
            .expect(200),
        );
      },
    },
    {
      path: 'DELETE /v1/listings/:id/images/:imageId',
      events: ['listing.updated'],
      run: async () => {
        const l = await withGallery();
        return written(() =>
          live().delete(`/v1/listings/${l.id}/images/${l.images[0].id}`).expect(200),
        );
      },
    },
    {
      path: 'POST /v1/listings/:id/sold',
      events: ['listing.sold'],
      run: async () => {
        const l = await create();
        return written(() => live().post(`/v1/listings/${l.id}/sold`).expect(200));
      },
    },
    {
      path: 'PUT /v1/listings/by-external-id/:externalId, creating',
      events: ['listing.created'],
      run: () =>
        written(() =>
          live()
            .put('/v1/listings/by-external-id/pay-put')
            .send(aListing().withExternalId('pay-put').build())
            .expect(201),
        ),
    },
    {
      path: 'PUT /v1/listings/by-external-id/:externalId, updating',
      events: ['listing.updated'],
      run: async () => {
        const put = aListing().withExternalId('pay-put-update').build();
        await live().put('/v1/listings/by-external-id/pay-put-update').send(put).expect(201);
        return written(() =>
          live()
            .put('/v1/listings/by-external-id/pay-put-update')
            .send({ ...put, price: 4321 })
            .expect(200),
        );
      },
    },
    {
      path: 'POST /v1/listings/bulk',
      events: ['listing.created', 'listing.created'],
      run: () =>
        written(() =>
          live()
            .post('/v1/listings/bulk')
            .send({ items: [aListing().build(), aListing().withExternalId('pay-bulk').build()] })
            .expect(200),
        ),
    },
    {
      path: 'PATCH /v1/listings/bulk',
      events: ['listing.updated', 'listing.updated'],
      run: async () => {
        const l = await create();
        await create(aListing().withExternalId('pay-bulk-patch').build());
        return written(() =>
          live()
            .patch('/v1/listings/bulk')
            .send({
              items: [
                { id: l.id, price: 99 },
                { externalId: 'pay-bulk-patch', title: 'Ny titel här' },
              ],
            })
            .expect(200),
        );
      },
    },
    {
      path: 'POST /v1/listings/bulk/sold',
      events: ['listing.sold'],
      run: async () => {
        const l = await create();
        return written(() =>
          live()
            .post('/v1/listings/bulk/sold')
            .send({ ids: [l.id] })
            .expect(200),
        );
      },
    },
    {
      path: 'the expiry sweep',
      events: ['listing.expired'],
      run: async () => {
        const l = await create();
        return written(async () => {
          await t.dataSource.query(
            `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = $1`,
            [l.id],
          );
          await t.app.get(ExpiryService).sweep();
        });
      },
    },
    {
      path: 'POST /v1/admin/listings/:id/remove',
      events: ['listing.removed'],
      run: async () => {
        const l = await create();
        return written(() =>
          admin(t)
            .post(`/v1/admin/listings/${l.id}/remove`)
            .send({ reason: 'Dubblett' })
            .expect(200),
        );
      },
    },
    {
      path: 'POST /v1/admin/listings/:id/messages, bare and with a message',
      events: ['message.received', 'message.received'],
      run: async () => {
        const l = await create();
        return written(async () => {
          await admin(t).post(`/v1/admin/listings/${l.id}/messages`).send({}).expect(201);
          await admin(t)
            .post(`/v1/admin/listings/${l.id}/messages`)
            .send({ messageId: 'm-1', preview: 'Finns den kvar?' })
            .expect(201);
        });
      },
    },
    {
      path: 'POST /v1/admin/listings/:id/favorites, bare and with a user',
      events: ['listing.favorited', 'listing.favorited'],
      run: async () => {
        const l = await create();
        return written(async () => {
          await admin(t).post(`/v1/admin/listings/${l.id}/favorites`).send({}).expect(201);
          await admin(t)
            .post(`/v1/admin/listings/${l.id}/favorites`)
            .send({ userRef: 'u-7' })
            .expect(201);
        });
      },
    },
    {
      path: 'POST /v1/imports, a line that updates and one that creates',
      events: ['listing.updated', 'listing.created', 'import.finished'],
      run: async () => {
        await create(aListing().withExternalId('pay-imp-1').build());
        const lines = [
          aListing().withExternalId('pay-imp-1').with({ price: 5 }).build(),
          aListing().withExternalId('pay-imp-2').build(),
        ];
        return written(() => importAndWait(lines.map((l) => JSON.stringify(l)).join('\n')));
      },
    },
    {
      path: 'POST /v1/imports?mode=mirror, held over its removal limit',
      events: ['import.held'],
      run: async () => {
        await create(aListing().withExternalId('pay-imp-gone').build());
        const line = JSON.stringify(aListing().withExternalId('pay-imp-1').build());
        return written(() => importAndWait(line, '?mode=mirror&maxRemovals=0'));
      },
    },
    {
      path: 'the test-mode sandbox: publish, messages and favorites bare and full, expire',
      events: [
        'listing.updated',
        'message.received',
        'message.received',
        'listing.favorited',
        'listing.favorited',
        'listing.expired',
      ],
      run: async () => {
        const sandbox = as(t, seller.testKey);
        const l = (await sandbox.post('/v1/listings').send(aListing().build()).expect(201)).body
          .data;
        const helper = (name: string) => sandbox.post(`/v1/test-helpers/listings/${l.id}/${name}`);
        return written(async () => {
          await helper('publish').expect(200);
          await helper('messages').send({}).expect(200);
          await helper('messages').send({ messageId: 'm-2', preview: 'Bud?' }).expect(200);
          await helper('favorites').send({}).expect(200);
          await helper('favorites').send({ userRef: 'u-8' }).expect(200);
          await helper('expire').expect(200);
        });
      },
    },
  ];

  /** Uploads an NDJSON import and waits until it is no longer queued or running. */
  async function importAndWait(ndjson: string, query = ''): Promise<void> {
    const res = await live()
      .post(`/v1/imports${query}`)
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson)
      .expect(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { status } = (await live().get(`/v1/imports/${res.body.data.id}`).expect(200)).body
        .data;
      if (status !== 'queued' && status !== 'running') return;
      if (Date.now() > deadline) throw new Error(`import still ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it.each(PATHS)('$path writes $events, each matching its description', async ({ events, run }) => {
    expect(await run()).toEqual(events);
  });

  it('the paths above write every event there is', () => {
    const events = PATHS.flatMap((p) => p.events);
    expect([...new Set(events)].sort()).toEqual([...EVENT_NAMES].sort());
    const count = (event: string) => events.filter((e) => e === event).length;
    // Only the creating paths count: the other paths' listings are made before `written`.
    expect(count('listing.created')).toBe(5);
    expect(count('listing.updated')).toBe(10);
    expect(count('listing.sold')).toBe(2);
  });
});
