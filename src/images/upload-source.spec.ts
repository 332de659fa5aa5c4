import { decodeBase64, imageSourceOf } from './upload-source';

describe('image sources', () => {
  it('decodes raw base64 and data: URLs alike', () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]);
    expect(decodeBase64(bytes.toString('base64'))).toEqual(bytes);
    expect(decodeBase64(`data:image/jpeg;base64,${bytes.toString('base64')}`)).toEqual(bytes);
  });

  it.each(['', 'not base64!', 'abcde', 'data:image/png;base64,'])('refuses %j', (value) => {
    expect(() => decodeBase64(value)).toThrow(/base64/);
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
