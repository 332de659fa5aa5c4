import { mediaKey } from './storage-driver';

describe('mediaKey', () => {
  it('is the decoded path after /media, without the query', () => {
    expect(mediaKey('/media/3f2a.jpg?v=1')).toBe('3f2a.jpg');
    expect(mediaKey('/media/a%20b.png')).toBe('a b.png');
  });

  it('names no file for a malformed escape instead of throwing', () => {
    expect(mediaKey('/media/%E0%A4%A.jpg')).toBe('');
  });
});
