import 'reflect-metadata';
import { CreateListingDto } from '../../listings/dto/create-listing.dto';
import { DomainError, MAX_ERROR_DETAILS } from '../errors/domain-error';
import { ValidationError as ClassValidatorError } from 'class-validator';
import {
  createValidationPipe,
  normalizeText,
  toValidationError,
  validateDto,
} from './validation.pipe';

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

  it.each([
    ['constructor', { ...valid, constructor: 1 }, 'constructor'],
    ['toString', { ...valid, toString: 'x' }, 'toString'],
    ['__proto__', JSON.parse(`{"__proto__": {"x": 1}, "title": "Volvo V70"}`), '__proto__'],
    ['valueOf in attributes', { ...valid, attributes: { valueOf: 2 } }, 'attributes.valueOf'],
    [
      'hasOwnProperty in an image',
      { ...valid, images: [{ hasOwnProperty: 1 }] },
      'images[0].hasOwnProperty',
    ],
  ])(
    'refuse a key named as an Object.prototype member (%s), naming it',
    async (_n, body, field) => {
      const details = [{ field, message: `${field} is not an allowed field` }];
      await expect(viaPipe(body)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details });
      const fromHelper = await validateDto(CreateListingDto, body).catch((e: DomainError) => e);
      expect((fromHelper as DomainError).details).toEqual(expect.arrayContaining(details));
    },
  );

  it('refuses an item that is not an object, naming the body', async () => {
    for (const item of [null, 42, 'x', [valid]]) {
      await expect(validateDto(CreateListingDto, item)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'body', message: 'body must be a JSON object' }],
      });
    }
  });
});

describe('text in NFC', () => {
  const decomposed = 'Cafe\u0301 Ha\u0308rno\u0308sand'; // "Café Härnösand", decomposed
  const composed = 'Café Härnösand';

  it('composes a decomposed "é"', () => {
    expect('e\u0301'.length).toBe(2);
    expect(normalizeText('e\u0301')).toBe('\u00e9');
  });

  it('normalises strings and keys at any depth, in arrays too, and keeps other values', () => {
    const date = new Date(0);
    expect(
      normalizeText({ [decomposed]: [decomposed, 1, null, true, { k: decomposed }], date }),
    ).toEqual({ [composed]: [composed, 1, null, true, { k: composed }], date });
  });

  it('leaves ill-formed text for the validators to refuse, and buffers alone', () => {
    expect(normalizeText('e\u0301\ud800')).toBe('e\u0301\ud800');
    const file = Buffer.from('e\u0301');
    expect((normalizeText({ file }) as { file: Buffer }).file).toBe(file);
  });

  it('keeps a "__proto__" key as data, as JSON.parse made it', () => {
    const out = normalizeText(JSON.parse('{"__proto__": {"polluted": "e\u0301"}}')) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('applies to bodies through the pipe and to bulk items alike', async () => {
    const body = {
      ...valid,
      title: `${decomposed} 2`,
      description: decomposed,
      attributes: { [`märke ${decomposed}`]: decomposed },
    };
    const expected = {
      title: `${composed} 2`,
      description: composed,
      attributes: { [`märke ${composed}`]: composed },
    };
    expect(await viaPipe(structuredClone(body))).toMatchObject(expected);
    expect(await validateDto(CreateListingDto, structuredClone(body))).toMatchObject(expected);
  });

  it('applies to queries and path parameters, not to values of custom decorators', async () => {
    const pipe = createValidationPipe();
    expect(await pipe.transform(decomposed, { type: 'param', metatype: String })).toBe(composed);
    expect(await pipe.transform({ q: decomposed }, { type: 'query' })).toEqual({ q: composed });
    const principal = { name: decomposed };
    expect(await pipe.transform(principal, { type: 'custom' })).toBe(principal);
  });

  it('refuses a lone surrogate in a text field after normalising the rest', async () => {
    await expect(viaPipe({ ...valid, title: 'Cafe\u0301 \ud800 bra' })).rejects.toMatchObject({
      details: [
        { field: 'title', message: 'title must be valid Unicode (it contains a lone surrogate)' },
      ],
    });
  });
});

describe('the number of details', () => {
  const errors = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      Object.assign(new ClassValidatorError(), {
        property: `f${i}`,
        constraints: { whitelistValidation: 'x' },
        children: [],
      }),
    );

  it('lists every error up to 50', () => {
    const error = toValidationError(errors(MAX_ERROR_DETAILS));
    expect(error.details).toHaveLength(50);
    expect(error.message).toBe('f0 is not an allowed field');
  });

  it('lists 50 and counts the rest in the message', () => {
    const error = toValidationError(errors(1284));
    expect(error.details).toHaveLength(50);
    expect(error.details?.[49].field).toBe('f49');
    expect(error.message).toBe('f0 is not an allowed field … and 1234 more errors');
    expect(toValidationError(errors(51)).message).toMatch(/… and 1 more error$/);
  });
});
