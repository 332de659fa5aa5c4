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
