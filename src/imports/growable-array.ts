export type GrowableArray = Uint8Array | Uint32Array | Int32Array;

interface GrowableType<T extends GrowableArray> {
  new (buffer: ArrayBuffer): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * Address space each array reserves up front: only pages written are memory. Past it an array
 * is copied once into a larger reservation (a feed of a million lines needs a few MB an array).
 */
const RESERVED_BYTES = 2 ** 30;

/**
 * A typed array of `length` zeroes over a resizable ArrayBuffer, tracking its length: it grows
 * and shrinks in place (`withRoom`, `trimTo`). An array grown by copying leaves each old copy as
 * garbage until V8's next full collection: tens of MB for the tables of a million-line feed.
 */
export function growable<T extends GrowableArray>(Type: GrowableType<T>, length: number): T {
  const bytes = length * Type.BYTES_PER_ELEMENT;
  return new Type(new ArrayBuffer(bytes, { maxByteLength: Math.max(bytes, RESERVED_BYTES) }));
}

/** `array` (from `growable`) with room for `length` elements at least, its contents kept. */
export function withRoom<T extends GrowableArray>(array: T, length: number): T {
  if (length <= array.length) return array;
  const elements = Math.max(length, array.length * 2);
  const buffer = array.buffer as ArrayBuffer;
  if (elements * array.BYTES_PER_ELEMENT <= buffer.maxByteLength) {
    buffer.resize(elements * array.BYTES_PER_ELEMENT);
    return array;
  }
  const larger = growable(array.constructor as GrowableType<T>, elements);
  larger.set(array);
  return larger;
}

/** Gives back the room past the first `length` elements (one is kept): its pages, no copy. */
export function trimTo(array: GrowableArray, length: number): void {
  (array.buffer as ArrayBuffer).resize(Math.max(length, 1) * array.BYTES_PER_ELEMENT);
}

/** The array's bytes as a Buffer over the same memory, as long as the array is now. */
export function bufferOf(array: Uint8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.length);
}
