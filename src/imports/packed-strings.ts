/**
 * A set of strings, each numbered by when it was added, packed in typed arrays and one byte
 * buffer: a V8 Map of a million short strings costs about 100 bytes an entry on the heap, this
 * about 30 (off the heap) plus the string's own bytes. Exact: a string is found by its every
 * code unit, never by its hash alone.
 */
export class PackedStrings {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  private offsets = new Uint32Array(1024);
  /** the length in code units << 1, | 1 when stored as UTF-16 (a code unit over 0xFF) */
  private lengths = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  /** open addressing, linear probing: an entry's index + 1, 0 when empty; a power of two long */
  private slots = new Int32Array(2048);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The number `value` was added as, or -1. */
  indexOf(value: string): number {
    const hash = hashOf(value);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] - 1;
      if (entry < 0) return -1;
      if (this.hashes[entry] === hash && this.equals(entry, value)) return entry;
    }
  }

  /** The number of `value`: the one it was added as, else the next one, as it is added now. */
  add(value: string): number {
    const found = this.indexOf(value);
    if (found >= 0) return found;
    const entry = this.count;
    if (entry === this.offsets.length) this.growEntries();
    if ((entry + 1) * 2 > this.slots.length) this.growSlots();
    const wide = isWide(value);
    const byteLength = wide ? value.length * 2 : value.length;
    if (this.used + byteLength > this.bytes.length) this.growBytes(byteLength);
    this.bytes.write(value, this.used, byteLength, wide ? 'utf16le' : 'latin1');
    this.offsets[entry] = this.used;
    this.lengths[entry] = (value.length << 1) | (wide ? 1 : 0);
    this.hashes[entry] = hashOf(value);
    this.used += byteLength;
    this.count++;
    this.place(entry);
    return entry;
  }

  /** The string added as `entry`. */
  at(entry: number): string {
    const length = this.lengths[entry];
    const wide = (length & 1) === 1;
    const start = this.offsets[entry];
    const end = start + (wide ? (length >>> 1) * 2 : length >>> 1);
    return this.bytes.toString(wide ? 'utf16le' : 'latin1', start, end);
  }

  private equals(entry: number, value: string): boolean {
    const length = this.lengths[entry];
    if (length >>> 1 !== value.length || (length & 1) !== (isWide(value) ? 1 : 0)) return false;
    const bytes = this.bytes;
    const start = this.offsets[entry];
    if ((length & 1) === 0) {
      for (let k = 0; k < value.length; k++)
        if (bytes[start + k] !== value.charCodeAt(k)) return false;
    } else {
      for (let k = 0; k < value.length; k++)
        if ((bytes[start + 2 * k] | (bytes[start + 2 * k + 1] << 8)) !== value.charCodeAt(k))
          return false;
    }
    return true;
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[entry] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private growEntries(): void {
    const size = this.offsets.length * 2;
    this.offsets = grown(this.offsets, new Uint32Array(size));
    this.lengths = grown(this.lengths, new Uint32Array(size));
    this.hashes = grown(this.hashes, new Uint32Array(size));
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.count; entry++) this.place(entry);
  }

  private growBytes(atLeast: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + atLeast));
    this.bytes.copy(bytes, 0, 0, this.used);
    this.bytes = bytes;
  }
}

/** A copy of `from` at the start of the longer `to`. */
export function grown<T extends Uint32Array | Int32Array | Float64Array | Uint8Array>(
  from: T,
  to: T,
): T {
  to.set(from as never);
  return to;
}

function isWide(value: string): boolean {
  for (let k = 0; k < value.length; k++) if (value.charCodeAt(k) > 0xff) return true;
  return false;
}

/** FNV-1a over the string's code units. */
function hashOf(value: string): number {
  let hash = 0x811c9dc5;
  for (let k = 0; k < value.length; k++) hash = Math.imul(hash ^ value.charCodeAt(k), 0x01000193);
  return hash >>> 0;
}
