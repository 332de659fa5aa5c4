import type { AttributeDefinition } from './categories.data';
import { validateAttributes } from './attribute-validation';

const CAR: AttributeDefinition[] = [
  { key: 'make', label: 'Märke', type: 'enum', required: true, values: ['volvo', 'saab'] },
  { key: 'modelYear', label: 'Årsmodell', type: 'integer', required: true, min: 1900, max: 2027 },
  { key: 'model', label: 'Modell', type: 'string', required: false, maxLength: 5 },
  { key: 'towbar', label: 'Dragkrok', type: 'boolean', required: false },
];

describe('validateAttributes', () => {
  it('accepts valid values and omitted optional ones', () => {
    expect(validateAttributes(CAR, { make: 'volvo', modelYear: 2019, towbar: false })).toEqual([]);
  });

  it('names each missing required attribute', () => {
    expect(validateAttributes(CAR, {}).map((e) => e.field)).toEqual([
      'attributes.make',
      'attributes.modelYear',
    ]);
  });

  it('counts a maximum length in characters, as the listing fields do: an emoji is one', () => {
    const valid = { make: 'volvo', modelYear: 2019 };
    expect(validateAttributes(CAR, { ...valid, model: '😀😀😀😀😀' })).toEqual([]);
    expect(validateAttributes(CAR, { ...valid, model: '😀😀😀😀😀😀' })).toEqual([
      { field: 'attributes.model', message: 'model must be at most 5 characters' },
    ]);
  });

  it('refuses unknown keys, wrong types, values outside the list or bounds', () => {
    const errors = validateAttributes(CAR, {
      make: 'tesla',
      modelYear: 1800.5,
      model: 'toolong',
      towbar: 'yes',
      colour: 'red',
    });
    expect(errors.map((e) => e.field)).toEqual([
      'attributes.colour',
      'attributes.make',
      'attributes.modelYear',
      'attributes.model',
      'attributes.towbar',
    ]);
    expect(validateAttributes(CAR, { make: 'volvo', modelYear: 1800 })[0].message).toBe(
      'modelYear must be at least 1900',
    );
  });
});
