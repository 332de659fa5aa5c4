import { decodeBase64, imageSourceOf } from './upload-source';

describe('image sources', () => {
  it('decodes raw base64 and data: URLs alike', () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]);
    expect(decodeBase64(bytes.toString('base64'))).toEqual(bytes);
    expect(decodeBase64(`data:image/jpeg;base64,${bytes.toString('base64')}`)).toEqual(bytes);
  });

  it('skips whitespace anywhere, as the base64 of MIME lines has it', () => {
    const bytes = Buffer.from('image bytes of some length');
    const spaced = bytes.toString('base64').replace(/(.{4})/g, '$1 \r\n\t');
    expect(decodeBase64(spaced)).toEqual(bytes);
    expect(decodeBase64(`DATA:image/png;charset=x;BASE64,${spaced}`)).toEqual(bytes);
  });

  it.each([
    '',
    '   ',
    'not base64!',
    'abcde',
    'AAAA=A==',
    'AA===',
    'data:image/png;base64,',
    'data:image/png,AAAA',
    `data:${';x'.repeat(200)};base64,AAAA`,
    'data:image/png;base64',
  ])('refuses %j', (value) => {
    expect(() => decodeBase64(value)).toThrow(/base64/);
  });

  it('refuses a long data: head in one pass, where a regular expression overflowed the stack', () => {
    const hostile = `data:${';x'.repeat(4_000_000)}`;
    expect(() => decodeBase64(hostile)).toThrow(/base64/);
  });

  it('needs exactly one source', () => {
    expect(() => imageSourceOf({}, undefined)).toThrow(/exactly one/);
    expect(() => imageSourceOf({ url: null } as never, undefined)).toThrow(/exactly one/);
    expect(() =>
      imageSourceOf({ url: 'https://x.example/a.jpg', base64: 'AAAA' }, undefined),
    ).toThrow(/exactly one/);
    expect(imageSourceOf({ url: 'https://x.example/a.jpg' }, undefined)).toEqual({
      kind: 'url',
      url: 'https://x.example/a.jpg',
    });
  });
});

describe('imageSourceOf on a multipart body', () => {
  it('takes the file, and refuses url or base64 sent as text fields, naming them', () => {
    const file = Buffer.from('image bytes');
    expect(imageSourceOf({}, file, true)).toEqual({ kind: 'upload', data: file, field: 'file' });
    for (const field of ['url', 'base64'] as const) {
      expect(() => imageSourceOf({ [field]: 'https://x.example/a.jpg' }, undefined, true)).toThrow(
        expect.objectContaining({ details: [expect.objectContaining({ field })] }),
      );
    }
  });
});
