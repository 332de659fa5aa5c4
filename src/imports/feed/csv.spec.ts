import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { NOT_UTF8_MARK } from '../../common/http/invalid-utf8';
import { CreateListingDto } from '../../listings/dto/create-listing.dto';
import { CATEGORY_TREE } from '../../reference/categories.data';
import { attributeTypesOf } from './attribute-types';
import { CSV_FIELDS } from './csv';
import { DEFAULT_FEED_LIMITS, type FeedLimits, type FeedLine } from './feed.types';
import { readFeed } from './read-feed';
import { bytewise, feedFailure } from '../../../test/support/feed-reading';

const attributeType = attributeTypesOf(CATEGORY_TREE);

async function read(
  chunks: (Buffer | string)[],
  { gzip = false, limits = {} }: { gzip?: boolean; limits?: Partial<FeedLimits> } = {},
): Promise<FeedLine[]> {
  return readSource(Readable.from(chunks), { gzip, limits });
}

async function readSource(
  source: Readable,
  { gzip = false, limits = {} }: { gzip?: boolean; limits?: Partial<FeedLimits> },
): Promise<FeedLine[]> {
  const lines: FeedLine[] = [];
  const feed = readFeed(source, {
    format: 'csv',
    gzip,
    limits: { ...DEFAULT_FEED_LIMITS, ...limits },
    attributeType,
  });
  for await (const record of feed) lines.push(record.read());
  return lines;
}

describe('readFeed, CSV', () => {
  it.each([
    ['comma', ','],
    ['semicolon', ';'],
    ['tab', '\t'],
  ])('takes the delimiter (%s) from the header', async (_, d) => {
    const csv = `externalId${d}title${d}price\na-1${d}Volvo V70${d}125000\n`;
    expect(await read([csv])).toEqual([
      { line: 2, body: { externalId: 'a-1', title: 'Volvo V70', price: 125000 } },
    ]);
  });

  it('takes the first delimiter outside quotes in the header line', async () => {
    const csv = '"title,with;comma";externalId\n"a,b";x\n';
    await expect(read([csv])).rejects.toMatchObject({
      code: 'unknown_column',
      message: expect.stringContaining('"title,with;comma"'),
    });
    expect(await read(['"title";"externalId"\n"a,b";x\n'])).toEqual([
      { line: 2, body: { title: 'a,b', externalId: 'x' } },
    ]);
    expect(await read(['externalId\nx\n'])).toEqual([{ line: 2, body: { externalId: 'x' } }]);
  });

  const QUOTED =
    '\ufeffexternalId,title,description\r\n' +
    'a,"Säljes, billigt","Rad ett\r\nrad ""två""\r\nrad tre"\r\n' +
    '\r\n' +
    'b,"Cykel",Fin\r\n' +
    'c,"multi\nline",x';
  const QUOTED_LINES: FeedLine[] = [
    {
      line: 2,
      body: {
        externalId: 'a',
        title: 'Säljes, billigt',
        description: 'Rad ett\r\nrad "två"\r\nrad tre',
      },
    },
    { line: 6, body: { externalId: 'b', title: 'Cykel', description: 'Fin' } },
    { line: 7, body: { externalId: 'c', title: 'multi\nline', description: 'x' } },
  ];

  it('reads quoted cells with delimiters, doubled quotes and line breaks; numbers records by their first line', async () => {
    expect(await read([QUOTED])).toEqual(QUOTED_LINES);
  });

  it('reads the same records whatever the chunk boundaries, and from gzip', async () => {
    expect(await read(bytewise(QUOTED))).toEqual(QUOTED_LINES);
    expect(await read(bytewise(gzipSync(QUOTED)), { gzip: true })).toEqual(QUOTED_LINES);
  });

  it('gives each record the JSON of what it reads as for content', async () => {
    const records = [];
    for await (const record of readFeed(Readable.from(['title;externalId\n"Cykel";a\n']), {
      format: 'csv',
      gzip: false,
      limits: DEFAULT_FEED_LIMITS,
      attributeType,
    }))
      records.push(record);
    expect(records.map((r) => r.content.toString())).toEqual([
      '{"title":"Cykel","externalId":"a"}',
    ]);
  });

  it('leaves an empty cell out of the body', async () => {
    const csv = 'externalId,title,phone,attributes.modelYear,images\nx,,,,\n';
    expect(await read([csv])).toEqual([{ line: 2, body: { externalId: 'x' } }]);
  });

  it('converts attribute cells to the attribute type, and leaves what it cannot read as text', async () => {
    const csv =
      'externalId,attributes.modelYear,attributes.balcony,attributes.fuel,attributes.model,price\n' +
      'a,2019,TRUE,petrol,V70,-5\n' +
      'b,20x9,ja,diesel,007,12.5\n' +
      'c,007,false,,,99999999999999999999\n';
    expect(await read([csv])).toEqual([
      {
        line: 2,
        body: {
          externalId: 'a',
          attributes: { modelYear: 2019, balcony: true, fuel: 'petrol', model: 'V70' },
          price: -5,
        },
      },
      {
        line: 3,
        body: {
          externalId: 'b',
          attributes: { modelYear: '20x9', balcony: 'ja', fuel: 'diesel', model: '007' },
          price: '12.5',
        },
      },
      {
        line: 4,
        body: {
          externalId: 'c',
          attributes: { modelYear: 7, balcony: false },
          price: '99999999999999999999',
        },
      },
    ]);
  });

  it('splits images on | into the gallery, in order', async () => {
    const csv = 'externalId,images\na,https://x/1.jpg|https://x/2.jpg | https://x/3.jpg|\n';
    expect(await read([csv])).toEqual([
      {
        line: 2,
        body: {
          externalId: 'a',
          images: [
            { url: 'https://x/1.jpg' },
            { url: 'https://x/2.jpg' },
            { url: 'https://x/3.jpg' },
          ],
        },
      },
    ]);
  });

  it('reads at most 31 images of a cell: enough for the listing to refuse more than 30', async () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://x/${i}.jpg`);
    const imagesOf = async (cell: string) => {
      const [line] = await read([`externalId,images\na,${cell}\n`]);
      return 'body' in line ? (line.body.images as { url: string }[]) : [];
    };
    expect(await imagesOf(urls(30).join('|'))).toHaveLength(30);
    // Empty parts do not count towards it: the 31st URL is still read after them.
    const sparse = await imagesOf(
      `${urls(30).join('|')}${'|'.repeat(50)}|https://x/last.jpg|https://x/more.jpg`,
    );
    expect(sparse).toHaveLength(31);
    expect(sparse[30]).toEqual({ url: 'https://x/last.jpg' });
    expect(await imagesOf('h|'.repeat(100_000))).toHaveLength(31);
  });

  it('finds the delimiter on the header line after blank lines, spaces-only ones included', async () => {
    expect(await read(['\n  \r\n externalId;title\na;t\n'])).toEqual([
      { line: 4, body: { externalId: 'a', title: 't' } },
    ]);
  });

  it('takes every line ending in one file, split anywhere: the first line does not decide', async () => {
    const expected = [
      { line: 2, body: { externalId: 'a', title: 't' } },
      { line: 3, body: { externalId: 'b', title: 'u' } },
    ];
    for (const csv of [
      'externalId,title\na,t\r\nb,u\r\n',
      'externalId,title\r\na,t\nb,u\n',
      'externalId,title\ra,t\r\nb,u\n',
    ]) {
      expect(await read([csv])).toEqual(expected);
      const bytes = Buffer.from(csv);
      const split = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      expect(await read(split)).toEqual(expected);
    }
  });

  it('reports a row of the wrong width as that line, with the externalId it still names', async () => {
    const csv = 'externalId,title\na\nb,t,extra\nc,t\n,t,x\n';
    expect(await read([csv])).toEqual([
      { line: 2, error: 'line 2: 1 cells where the header has 2 columns', externalId: 'a' },
      { line: 3, error: 'line 3: 3 cells where the header has 2 columns', externalId: 'b' },
      { line: 4, body: { externalId: 'c', title: 't' } },
      { line: 5, error: 'line 5: 3 cells where the header has 2 columns' },
    ]);
    const short = await read(['title,price,externalId\nt,1\n']);
    expect(short).toEqual([{ line: 2, error: 'line 2: 2 cells where the header has 3 columns' }]);
  });

  it('marks bytes that are not UTF-8 in a cell, for its field to refuse; a character split across chunks is read', async () => {
    const latin1 = Buffer.from(
      'externalId;title\nlat-1;Soffa gr\xe5 fin\nlat-2;Fin soffa gr\u00e5\n',
      'latin1',
    );
    const utf8 = Buffer.from('ok-2;Soffa grå\n');
    const split = utf8.indexOf(0xc3) + 1; // between the two bytes of å
    const header = Buffer.from('externalId;titel f\xf6r annons\n', 'latin1');
    await expect(read([header])).rejects.toThrow(
      'line 1: the header is not valid UTF-8; convert the file to UTF-8',
    );
    expect(await read([latin1, utf8.subarray(0, split), utf8.subarray(split)])).toEqual([
      { line: 2, body: { externalId: 'lat-1', title: `Soffa gr${NOT_UTF8_MARK} fin` } },
      { line: 3, body: { externalId: 'lat-2', title: `Fin soffa gr${NOT_UTF8_MARK}` } },
      { line: 4, body: { externalId: 'ok-2', title: 'Soffa grå' } },
    ]);
  });

  it('takes a header that ends in its delimiter: rows may end in one too, and fail a value there', async () => {
    const csv = 'externalId;title;\na;t;\nb;u\nc;v;x\nd;w;;\n';
    expect(await read([csv])).toEqual([
      { line: 2, body: { externalId: 'a', title: 't' } },
      { line: 3, body: { externalId: 'b', title: 'u' } },
      {
        line: 4,
        error:
          'line 4: a value after the last column (the header ends with its delimiter, naming no column there)',
        externalId: 'c',
      },
      { line: 5, error: 'line 5: 4 cells where the header has 2 columns', externalId: 'd' },
    ]);
    // Without the header's trailing delimiter, a row's is an extra cell.
    expect(await read(['externalId;title\na;t;\n'])).toEqual([
      { line: 2, error: 'line 2: 3 cells where the header has 2 columns', externalId: 'a' },
    ]);
  });

  it('fails an unknown column, naming it', async () => {
    for (const column of ['colour', 'attributes.wingspan', 'attributes', 'status']) {
      const err = await feedFailure(read([`externalId,${column}\na,b\n`]));
      expect(err.code).toBe('unknown_column');
      expect(err.message).toContain(`"${column}"`);
    }
  });

  it('fails a column named twice', async () => {
    const err = await feedFailure(read(['externalId,title,title\n']));
    expect(err.code).toBe('duplicate_column');
  });

  it('fails malformed quoting with malformed_csv, naming the line', async () => {
    const unclosed = await feedFailure(read(['externalId,title\na,ok\nb,"never closed\nc,d\n']));
    expect(unclosed).toMatchObject({ code: 'malformed_csv', line: 3 });
    expect(unclosed.message).toMatch(/^line 3: malformed CSV/);
    const stray = await feedFailure(read(['externalId,title\r\na,"x\r\ny"\r\nb,ab"c\r\n']));
    expect(stray).toMatchObject({ code: 'malformed_csv', line: 4 });
    const bytes = await feedFailure(read(bytewise('externalId,title\r\na,"x\r\ny"\r\nb,ab"c\r\n')));
    expect(bytes).toMatchObject({ code: 'malformed_csv', line: 4 });
    const trailing = await feedFailure(read(['externalId,title\na,"x"y\n']));
    expect(trailing).toMatchObject({ code: 'malformed_csv', line: 2 });
  });

  it('reads a header-only file, or an empty one, as no lines', async () => {
    expect(await read(['externalId,title\r\n'])).toEqual([]);
    expect(await read(['\ufeffexternalId;title'])).toEqual([]);
    expect(await read([])).toEqual([]);
  });

  it('applies the limits: data lines, record length, file size', async () => {
    const csv = 'externalId\na\n\nb\nc\n';
    expect(await read([csv], { limits: { maxLines: 3 } })).toHaveLength(3);
    expect(await feedFailure(read([csv], { limits: { maxLines: 2 } }))).toMatchObject({
      code: 'too_many_lines',
      line: 5,
    });
    // Blank lines: as many as data lines at most.
    expect(
      await read([`externalId\n${'\n'.repeat(3)}a\n`], { limits: { maxLines: 3 } }),
    ).toHaveLength(1);
    expect(
      await feedFailure(read([`externalId\n${'\r\n'.repeat(4)}a\n`], { limits: { maxLines: 3 } })),
    ).toMatchObject({
      code: 'too_many_lines',
      line: 5,
      message: 'line 5: the file has more than 3 blank lines',
    });
    const long = `externalId,title\na,"${'x'.repeat(100)}"\n`;
    expect(await feedFailure(read([long], { limits: { maxLineBytes: 64 } }))).toMatchObject({
      code: 'line_too_long',
      line: 2,
    });
    const wide = `externalId,title\na,"${'ö'.repeat(40)}"\n`; // 40 characters, 80 bytes
    expect(await feedFailure(read([wide], { limits: { maxLineBytes: 64 } }))).toMatchObject({
      code: 'line_too_long',
      line: 2,
    });
    expect((await feedFailure(read([csv], { limits: { maxBytes: 5 } }))).code).toBe('too_large');
  });

  it("reads a row of 250,000 empty cells as that line's failure; a record's delimiters count as bytes", async () => {
    const wide = `externalId,title\n${','.repeat(249_999)}\nok,t\n`;
    expect(await read([wide])).toEqual([
      { line: 2, error: 'line 2: 250000 cells where the header has 2 columns' },
      { line: 3, body: { externalId: 'ok', title: 't' } },
    ]);
    // A cell past the header's width is only counted, its line breaks too.
    expect(await read(['externalId,title\na,b,"x\r\ny\nz"\nc,t\n'])).toEqual([
      { line: 2, error: 'line 2: 3 cells where the header has 2 columns', externalId: 'a' },
      { line: 5, body: { externalId: 'c', title: 't' } },
    ]);
    const err = await feedFailure(
      read([`externalId\n${','.repeat(65)}\n`], {
        limits: { maxLineBytes: 64 },
      }),
    );
    expect(err).toMatchObject({ code: 'line_too_long', line: 2 });
  });

  it('refuses a row of empty cells that never ends as soon as it passes the limit', async () => {
    let sent = 0;
    async function* endless() {
      yield Buffer.from('externalId,title\n');
      for (;;) {
        sent += 1024;
        yield Buffer.alloc(1024, 0x2c); // ,
      }
    }
    const feed = readFeed(endless(), {
      format: 'csv',
      gzip: false,
      limits: { ...DEFAULT_FEED_LIMITS, maxLineBytes: 1024 },
      attributeType,
    });
    expect(await feedFailure(feed.next())).toMatchObject({ code: 'line_too_long', line: 2 });
    expect(sent).toBeLessThanOrEqual(2 * 1024);
  });

  it('closes the source when the reader stops early', async () => {
    const csv = Readable.from(['externalId\na\n', 'b\n', 'c\n']);
    for await (const line of readFeed(csv, {
      format: 'csv',
      gzip: false,
      limits: DEFAULT_FEED_LIMITS,
      attributeType,
    })) {
      expect(line.read()).toEqual({ line: 2, body: { externalId: 'a' } });
      break;
    }
    await new Promise(setImmediate);
    expect(csv.destroyed).toBe(true);

    const header = Readable.from([`externalId,${'x'.repeat(100)}`, 'more']);
    const err = await feedFailure(readSource(header, { limits: { maxLineBytes: 64 } }));
    expect(err.code).toBe('line_too_long');
    await new Promise(setImmediate);
    expect(header.destroyed).toBe(true);
  });

  it('knows every listing field of a PUT body as a column', () => {
    const properties = getMetadataStorage()
      .getTargetValidationMetadatas(CreateListingDto, '', true, false)
      .map((m) => m.propertyName);
    expect(new Set([...CSV_FIELDS, 'attributes'])).toEqual(new Set(properties));
  });
});

describe('attributeTypesOf', () => {
  it('looks attribute types up across the category tree', () => {
    expect(attributeType('modelYear')).toBe('integer');
    expect(attributeType('balcony')).toBe('boolean');
    expect(attributeType('fuel')).toBe('enum');
    expect(attributeType('nope')).toBeUndefined();
    expect(attributeType('__proto__')).toBeUndefined();
  });

  it('accepts a key that is enum in one category and string in another, and refuses integer and string', () => {
    const leaf = (slug: string, type: 'enum' | 'string' | 'integer') => ({
      slug,
      name: slug,
      attributes: [{ key: 'brand', label: 'Märke', type, required: false }],
    });
    expect(attributeTypesOf([leaf('a', 'enum'), leaf('b', 'string')])('brand')).toBe('enum');
    expect(() => attributeTypesOf([leaf('a', 'integer'), leaf('b', 'string')])).toThrow(
      'attribute brand is integer in one category and string in another',
    );
  });
});
