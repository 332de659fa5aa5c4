import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { IsPlainText, isPlainText, plainTextProblem, textProblem } from './plain-text.validator';

class Probe {
  @IsPlainText()
  text: unknown;
}

const messages = async (text: unknown) =>
  (await validate(plainToInstance(Probe, { text }))).flatMap((e) =>
    Object.values(e.constraints ?? {}),
  );

const BIDI_AND_BOM = [
  ...Array.from({ length: 5 }, (_, i) => 0x202a + i),
  ...Array.from({ length: 4 }, (_, i) => 0x2066 + i),
  0xfeff,
].map((code) => String.fromCharCode(code));

describe('plain text', () => {
  it('refuses lone surrogates, high and low, wherever they are', () => {
    for (const text of ['\ud800', 'a\udbff', '\udc00b', 'x\udfffy', '\ude00\ud83d']) {
      expect(textProblem(text)).toBe('must be valid Unicode (it contains a lone surrogate)');
    }
  });

  it('accepts surrogate pairs, Swedish letters and the allowed whitespace', () => {
    for (const text of ['💺', '\ud83d\ude00 Fåtölj', 'Åsa\tÖrjan\r\nÄng', '', 'é', 'e\u0301']) {
      expect(textProblem(text)).toBeUndefined();
    }
  });

  it.each(BIDI_AND_BOM.map((char) => [char.charCodeAt(0).toString(16), char]))(
    'refuses U+%s',
    (_code, char) => {
      expect(textProblem(`Volvo${char} V70`)).toMatch(/bidirectional control characters/);
      expect(isPlainText({ [`mo${char}del`]: 'V70' })).toBe(false);
    },
  );

  it('leaves the other format characters alone (zero-width joiner in emoji, soft hyphen)', () => {
    expect(textProblem('👨\u200d👩\u200d👧 Bil\u00adhall')).toBeUndefined();
  });

  it('keeps refusing control characters with the same message', async () => {
    expect(await messages('fin\u0000x')).toEqual(['text must not contain control characters']);
  });

  it('names the key or value at fault inside an object', async () => {
    expect(plainTextProblem({ model: 'V70', make: 'Vol\ud800vo' }, 'attributes')).toBe(
      'attributes.make must be valid Unicode (it contains a lone surrogate)',
    );
    expect(plainTextProblem({ ['mod\u202eel']: 'V70' }, 'attributes')).toMatch(
      /^a key of attributes must not contain bidirectional/,
    );
    expect(plainTextProblem({ tags: ['ok', '\ufeff'] }, 'attributes')).toMatch(
      /^attributes\.tags\[1\] must not contain bidirectional/,
    );
    expect(await messages({ a: { b: '\udc00' } })).toEqual([
      'text.a.b must be valid Unicode (it contains a lone surrogate)',
    ]);
    expect(await messages({ a: { b: 'fine', c: 1, d: null } })).toEqual([]);
  });
});
