import 'reflect-metadata';
import { CreateListingDto } from '../../listings/dto/create-listing.dto';
import { DomainError } from '../errors/domain-error';
import { createValidationPipe, validateDto } from './validation.pipe';

const valid = {
  title: '  Volvo V70 2.4 D5  ',
  description: 'Välskött.',
  price: 89_000,
  condition: 'GOOD',
  categorySlug: 'cars',
  locationLan: 'stockholm',
  locationKommun: 'upplands-vasby',
  phone: '+46 70-123 45 67',
};

const viaPipe = (body: unknown) =>
  createValidationPipe().transform(body, { type: 'body', metatype: CreateListingDto });

describe('validateDto (one bulk item) and the global pipe (one body)', () => {
  it.each([
    ['a missing field', { ...valid, price: undefined }],
    ['an unknown field', { ...valid, colour: 'red' }],
    ['a nested field', { ...valid, images: [{ url: 'ftp://x', order: 30 }] }],
    ['several fields', { ...valid, title: 'x', condition: 'MINT', price: -1 }],
  ])('refuse %s with the same details', async (_name, body) => {
    const fromPipe = await viaPipe(structuredClone(body)).catch((e: DomainError) => e);
    const fromHelper = await validateDto(CreateListingDto, structuredClone(body)).catch(
      (e: DomainError) => e,
    );
    expect(fromHelper).toBeInstanceOf(DomainError);
    expect(fromHelper).toEqual(fromPipe);
    expect((fromHelper as DomainError).details).toEqual((fromPipe as DomainError).details);
  });

  it('transform a valid body the same way', async () => {
    const dto = await validateDto(CreateListingDto, structuredClone(valid));
    expect(dto).toBeInstanceOf(CreateListingDto);
    expect(dto).toEqual(await viaPipe(structuredClone(valid)));
    expect(dto).toMatchObject({ title: 'Volvo V70 2.4 D5', phone: '+46701234567' });
  });

  it('refuses an item that is not an object, naming the body', async () => {
    for (const item of [null, 42, 'x', [valid]]) {
      await expect(validateDto(CreateListingDto, item)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'body', message: 'body must be a JSON object' }],
      });
    }
  });
});
