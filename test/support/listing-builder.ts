/** Builds listing bodies: a valid car listing by default, changed only where a test cares. */
export class ListingBuilder {
  private body: Record<string, unknown> = {
    title: 'Volvo V70 2.4 D5 Momentum',
    description: 'Välskött bil med dragkrok och vinterhjul. Servad 2025.',
    price: 89_000,
    condition: 'GOOD',
    categorySlug: 'cars',
    locationLan: 'stockholm',
    locationKommun: 'upplands-vasby',
    attributes: {
      make: 'volvo',
      model: 'V70',
      modelYear: 2012,
      mileageKm: 184_000,
      fuel: 'diesel',
      gearbox: 'automatic',
    },
  };

  with(fields: Record<string, unknown>): this {
    this.body = { ...this.body, ...fields };
    return this;
  }

  without(...fields: string[]): this {
    for (const field of fields) delete this.body[field];
    return this;
  }

  withExternalId(externalId: string): this {
    return this.with({ externalId });
  }

  withImages(count: number): this {
    return this.with({
      images: Array.from({ length: count }, (_, i) => ({
        url: `https://img.example.com/${i}.jpg`,
      })),
    });
  }

  build(): Record<string, unknown> {
    return structuredClone(this.body);
  }
}

export const aListing = () => new ListingBuilder();
