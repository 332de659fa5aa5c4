import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsOptional, Max, Min, validate } from 'class-validator';
import { CreateListingDto } from '../../listings/dto/create-listing.dto';
import { UpdateListingDto } from '../../listings/dto/update-listing.dto';
import { MAX_ERROR_DETAILS, ValidationError } from '../errors/domain-error';
import { IsIntegerQuery } from './integer-query.decorator';
import {
  checkDto,
  createValidationPipe,
  ShapeValidationError,
  validateDto,
} from './validation.pipe';

const valid = {
  title: 'Volvo V70 2.4 D5',
  description: 'Välskött.',
  price: 89_000,
  condition: 'GOOD',
  categorySlug: 'cars',
  locationLan: 'stockholm',
  locationKommun: 'upplands-vasby',
};

describe('ValidationError.merged', () => {
  it('keeps every field once, the first error of each, and the first message', () => {
    const error = ValidationError.merged(
      [{ field: 'price', message: 'price must not be less than 0' }],
      [
        { field: 'price', message: 'a later price error' },
        { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
      ],
    );
    expect(error?.message).toBe('price must not be less than 0');
    expect(error?.details).toEqual([
      { field: 'price', message: 'price must not be less than 0' },
      { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
    ]);
  });

  it('is undefined without errors, and still caps the details', () => {
    expect(ValidationError.merged([], [])).toBeUndefined();
    const many = Array.from({ length: 60 }, (_, i) => ({ field: `f${i}`, message: `m${i}` }));
    const error = ValidationError.merged(many)!;
    expect(error.details).toHaveLength(MAX_ERROR_DETAILS);
    expect(error.message).toBe('m0 … and 10 more errors');
  });
});

describe('a shape error keeps what it checked', () => {
  const bad = { ...valid, price: -1, locationKommun: 42, images: [{ url: 'ftp://x' }] };

  it('from the global pipe and from validateDto alike: the DTO, its errors and the fields at fault', async () => {
    const fromPipe = await createValidationPipe()
      .transform(structuredClone(bad), { type: 'body', metatype: CreateListingDto })
      .catch((e: unknown) => e);
    const fromHelper = await validateDto(CreateListingDto, structuredClone(bad)).catch(
      (e: unknown) => e,
    );
    for (const error of [fromPipe, fromHelper]) {
      const checked = ShapeValidationError.checkedOf(error, CreateListingDto)!;
      expect(checked.dto).toBeInstanceOf(CreateListingDto);
      expect(checked.dto).toMatchObject({ categorySlug: 'cars', locationLan: 'stockholm' });
      expect([...checked.invalid].sort()).toEqual(['images', 'locationKommun', 'price']);
      expect(checked.errors.map((e) => e.field)).toEqual([
        'price',
        'locationKommun',
        'images[0].url',
      ]);
      expect((error as ValidationError).details).toEqual(checked.errors);
      // The body never shows in what is logged or answered.
      expect(Object.keys(error as object)).not.toContain('checked');
      expect(ShapeValidationError.checkedOf(error, UpdateListingDto)).toBeUndefined();
    }
  });

  it('checkDto answers instead of throwing; a valid body has no errors', async () => {
    expect((await checkDto(CreateListingDto, valid)).errors).toEqual([]);
    const checked = await checkDto(UpdateListingDto, { price: 'free', title: null });
    expect(checked.errors).toEqual([
      { field: 'price', message: 'price must be an integer number' },
    ]);
    expect(checked.dto).toMatchObject({ title: null });
  });
});

describe('IsIntegerQuery', () => {
  class Query {
    @Max(100)
    @Min(1)
    @IsIntegerQuery()
    @IsOptional()
    limit: number = 20;
  }
  const read = async (limit: unknown) => {
    const dto = plainToInstance(Query, limit === undefined ? {} : { limit });
    const errors = await validate(dto, { stopAtFirstError: true });
    return { limit: dto.limit, errors: errors.map((e) => Object.values(e.constraints ?? {})[0]) };
  };

  it.each(['1e1', '1.0', '+1', ' 1', '1 ', '0x10', '1_000', '', '0b1', '1n', 'Infinity'])(
    'refuses %j as not an integer, naming the parameter',
    async (value) => {
      expect(await read(value)).toEqual({
        limit: value,
        errors: ['limit must be an integer number'],
      });
    },
  );

  it('reads plain decimal digits as their number; ranges still apply', async () => {
    expect(await read('10')).toEqual({ limit: 10, errors: [] });
    expect(await read('010')).toEqual({ limit: 10, errors: [] });
    expect(await read('-1')).toEqual({ limit: -1, errors: ['limit must not be less than 1'] });
    expect(await read(undefined)).toEqual({ limit: 20, errors: [] });
  });
});
