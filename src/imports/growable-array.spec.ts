import { growable, trimTo, withRoom } from './growable-array';

describe('growable arrays', () => {
  it('grow in place: the same array and buffer, the contents kept, the new room zeroed', () => {
    const array = growable(Uint32Array, 4);
    array.set([1, 2, 3, 4]);
    const buffer = array.buffer;
    const grown = withRoom(array, 5);
    expect(grown).toBe(array);
    expect(grown.buffer).toBe(buffer);
    expect(grown.length).toBe(8); // doubled: few resizes for many small steps
    expect([...grown]).toEqual([1, 2, 3, 4, 0, 0, 0, 0]);
    expect(withRoom(array, 3)).toBe(array); // room enough already
  });

  it('trim in place, keeping the first elements, and grow again after', () => {
    const array = growable(Uint8Array, 1024);
    array.set([7, 8, 9]);
    trimTo(array, 3);
    expect(array.buffer.byteLength).toBe(3);
    expect([...array]).toEqual([7, 8, 9]);
    trimTo(array, 0);
    expect([...array]).toEqual([7]); // one element kept: an empty array still has its buffer
    expect([...withRoom(array, 2)]).toEqual([7, 0]);
  });

  it('copies into a larger reservation only past its own', () => {
    const array = new Int32Array(new ArrayBuffer(8, { maxByteLength: 8 }));
    array.set([5, 6]);
    const larger = withRoom(array, 3);
    expect(larger).not.toBe(array);
    expect([...larger]).toEqual([5, 6, 0, 0]);
    expect((larger.buffer as ArrayBuffer).resizable).toBe(true);
  });
});
