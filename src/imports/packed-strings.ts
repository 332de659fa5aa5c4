import { bufferOf, growable, trimTo, withRoom } from './growable-array';

/**
 * A set of strings, each numbered by when it was added, packed in typed arrays and one byte
 * buffer: a V8 Map of a million short strings costs about 100 bytes an entry on the heap, this
 * about 12 (off the heap: its offset, its slots) plus the string's own bytes. Exact: a string is
 * found by its every code unit, never by its hash alone. The arrays grow in place (growable).
 */
export class PackedStrings {
  private raw = growable(Uint8Array, 64 * 1024);
  /** `raw` as a Buffer, for its string encodings: made again whenever `raw` is resized */
  private bytes = bufferOf(this.raw);
  private used = 0;
  /** where each string starts; it ends where the next one starts (the last: at `used`) */
  private offsets = growable(Uint32Array, 1024);
  /** one bit a string: stored as UTF-16 (a code unit over 0xFF), else as Latin-1 */
  private wide = growable(Uint8Array, 1024 / 8);
  /** open addressing, linear probing: an entry's index + 1, 0 when empty; a power of two long */
  private slots = new Int32Array(2048);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The number `value` was added as, or -1. */
  indexOf(value: string): number {
    const mask = this.slots.length - 1;
    const wide = isWide(value);
    for (let slot = hashOf(value) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] - 1;
      if (entry < 0) return -1;
      if (this.equals(entry, value, wide)) return entry;
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
    if (wide) this.wide[entry >>> 3] |= 1 << (entry & 7);
    this.used += byteLength;
    this.count++;
    this.place(entry, hashOf(value));
    return entry;
  }

  /** The string added as `entry`. */
  at(entry: number): string {
    return this.bytes.toString(
      this.isWide(entry) ? 'utf16le' : 'latin1',
      this.offsets[entry],
      this.end(entry),
    );
  }

  /**
   * Gives back the room kept for strings yet to come (up to half the bytes and entries): for a
   * set that is complete, such as a feed's externalIds once the file is read.
   */
  trim(): void {
    trimTo(this.raw, this.used);
    this.bytes = bufferOf(this.raw);
    trimTo(this.offsets, this.count);
    trimTo(this.wide, Math.ceil(this.count / 8));
  }

  private isWide(entry: number): boolean {
    return (this.wide[entry >>> 3] & (1 << (entry & 7))) !== 0;
  }

  private end(entry: number): number {
    return entry + 1 < this.count ? this.offsets[entry + 1] : this.used;
  }

  private equals(entry: number, value: string, wide: boolean): boolean {
    if (this.isWide(entry) !== wide) return false;
    const bytes = this.bytes;
    const start = this.offsets[entry];
    if ((this.end(entry) - start) >>> (wide ? 1 : 0) !== value.length) return false;
    if (!wide) {
      for (let k = 0; k < value.length; k++)
        if (bytes[start + k] !== value.charCodeAt(k)) return false;
    } else {
      for (let k = 0; k < value.length; k++)
        if ((bytes[start + 2 * k] | (bytes[start + 2 * k + 1] << 8)) !== value.charCodeAt(k))
          return false;
    }
    return true;
  }

  private place(entry: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  /** The hash of a stored string, from its bytes (as `hashOf` of the string). */
  private hashAt(entry: number): number {
    const bytes = this.bytes;
    const start = this.offsets[entry];
    const end = this.end(entry);
    let hash = 0x811c9dc5;
    if (!this.isWide(entry)) {
      for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k], 0x01000193);
    } else {
      for (let k = start; k < end; k += 2)
        hash = Math.imul(hash ^ (bytes[k] | (bytes[k + 1] << 8)), 0x01000193);
    }
    return hash >>> 0;
  }

  private growEntries(): void {
    this.offsets = withRoom(this.offsets, this.offsets.length + 1);
    this.wide = withRoom(this.wide, Math.ceil(this.offsets.length / 8));
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.count; entry++) this.place(entry, this.hashAt(entry));
  }

  private growBytes(atLeast: number): void {
    this.raw = withRoom(this.raw, this.used + atLeast);
    this.bytes = bufferOf(this.raw);
  }
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
