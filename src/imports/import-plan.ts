import { DomainError } from '../common/errors/domain-error';
import type { ImportResultRow, ImportStatus, KnownLine, OutcomeTally } from './imports.store';
import { bufferOf, growable, trimTo, withRoom } from './growable-array';
import { PackedStrings } from './packed-strings';

/** The removal limit of a mirror import: as asked, else 10% of what it could remove, at least 10. */
export function removalLimit(maxRemovals: number | null, removable: number): number {
  return maxRemovals ?? Math.max(10, Math.ceil(removable * 0.1));
}

/** How an import that ran to its end finished. */
export function finalStatus(tally: { failed: number }): ImportStatus {
  return tally.failed > 0 ? 'succeeded_with_errors' : 'succeeded';
}

export function emptyTally(): OutcomeTally {
  return {
    created: 0,
    updated: 0,
    unchanged: 0,
    renewed: 0,
    restored: 0,
    skipped: 0,
    failed: 0,
    removed: 0,
  };
}

/** The error a failed line carries: what the PUT would have answered. */
export function lineError(error: DomainError): NonNullable<ImportResultRow['error']> {
  return error.details?.length
    ? { code: error.code, message: error.message, details: error.details }
    : { code: error.code, message: error.message };
}

/**
 * Each line's first occurrence by externalId, to fail the later ones ("duplicate of line N"),
 * kept for the whole file: packed (PackedStrings), as a Map it was ~100 MB of a 1,000,000-line
 * import's worker.
 */
export class FirstLines {
  private readonly ids = new PackedStrings();
  /** line numbers: at most IMPORT_MAX_LINES (≤ 10,000,000) data lines and as many blank ones */
  private firsts = growable(Uint32Array, 1024);

  /** An externalId with U+0000 names no listing (none can hold one, nor can PostgreSQL's text). */
  note(externalId: unknown, line: number): void {
    if (typeof externalId !== 'string' || externalId.includes('\0')) return;
    const known = this.ids.size;
    const entry = this.ids.add(externalId);
    if (entry < known) return;
    this.firsts = withRoom(this.firsts, entry + 1);
    this.firsts[entry] = line;
  }

  /** Gives back the room kept for more ids: once the whole file is noted. */
  trim(): void {
    this.ids.trim();
    trimTo(this.firsts, this.ids.size);
  }

  /** The earlier line holding this externalId, when `line` is not its first. */
  duplicateOf(externalId: string, line: number): number | undefined {
    const entry = this.ids.indexOf(externalId);
    if (entry < 0) return undefined;
    const first = this.firsts[entry];
    return first !== line ? first : undefined;
  }

  /**
   * The externalIds as one text[] parameter in PostgreSQL's binary format (node-pg sends a Buffer
   * as binary), written straight from the packed ids: as a text literal, a million ids were a
   * string of ~14 MB and its bytes as much again, garbage the worker held until V8 collected it.
   */
  externalIdsParam(): Buffer {
    const count = this.ids.size;
    let size = ARRAY_HEADER_BYTES;
    for (let entry = 0; entry < count; entry++)
      size += 4 + Buffer.byteLength(this.ids.at(entry), 'utf8');
    const out = Buffer.allocUnsafe(size);
    // array_recv's layout: dimensions, a has-nulls flag, the element type, each dimension's
    // length and lower bound (none for an empty array), then each element's length and bytes.
    let at = out.writeInt32BE(count > 0 ? 1 : 0, 0);
    at = out.writeInt32BE(0, at);
    at = out.writeInt32BE(TEXT_OID, at);
    if (count > 0) at = out.writeInt32BE(1, out.writeInt32BE(count, at));
    for (let entry = 0; entry < count; entry++) {
      const length = out.write(this.ids.at(entry), at + 4, 'utf8');
      at = out.writeInt32BE(length, at) + length;
    }
    return out.subarray(0, at);
  }

  /** The number a noted externalId is kept as, or -1 (KnownLines keeps that instead). */
  entryOf(externalId: string): number {
    return this.ids.indexOf(externalId);
  }

  externalIdAt(entry: number): string {
    return this.ids.at(entry);
  }
}

/** PostgreSQL's oid of `text`, the element type array_recv checks */
const TEXT_OID = 25;
/** dimensions, flags and element type; one dimension's length and lower bound */
const ARRAY_HEADER_BYTES = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_BYTES = 16;
const RENEWAL_DUE = 1;
const DELETED = 2;

/**
 * The lines the read pass found by their hash, by line number: all of a re-sent file's, kept
 * until each is prepared. Packed (25 bytes a line: the line, the listing id's 16 bytes, its
 * externalId as FirstLines' entry, a flag), as a Map of objects it was ~200 MB for 1,000,000 lines.
 * Lines are set in file order; one that is not (or does not pack) is kept in a Map instead.
 */
export class KnownLines {
  private lines = growable(Uint32Array, 1024);
  private entries = growable(Uint32Array, 1024);
  private flags = growable(Uint8Array, 1024);
  /** 16 bytes a line */
  private idRoom = growable(Uint8Array, 1024 * UUID_BYTES);
  /** `idRoom` as a Buffer, for its hex encoding: made again whenever `idRoom` is resized */
  private listingIds = bufferOf(this.idRoom);
  private count = 0;
  private readonly others = new Map<number, KnownLine>();

  /** `firstLines` must have noted each hit's externalId before it is set here. */
  constructor(private readonly firstLines: FirstLines) {}

  set(line: number, hit: KnownLine): void {
    const entry = this.firstLines.entryOf(hit.externalId);
    const inOrder = this.count === 0 || line > this.lines[this.count - 1];
    if (entry < 0 || !inOrder || !UUID.test(hit.listingId)) {
      this.others.set(line, hit);
      return;
    }
    this.others.delete(line);
    if (this.count === this.lines.length) this.grow();
    this.lines[this.count] = line;
    this.entries[this.count] = entry;
    this.flags[this.count] = hit.renewalDue ? RENEWAL_DUE : 0;
    this.listingIds.write(hit.listingId.replaceAll('-', ''), this.count * UUID_BYTES, 'hex');
    this.count++;
  }

  /** Gives back the room kept for more lines: once the read pass has set them all. */
  trim(): void {
    trimTo(this.lines, this.count);
    trimTo(this.entries, this.count);
    trimTo(this.flags, this.count);
    trimTo(this.idRoom, Math.max(this.count, 1) * UUID_BYTES);
    this.listingIds = bufferOf(this.idRoom);
  }

  get(line: number): KnownLine | undefined {
    const other = this.others.get(line);
    if (other) return other;
    const at = this.find(line);
    if (at < 0) return undefined;
    const hex = this.listingIds.toString('hex', at * UUID_BYTES, (at + 1) * UUID_BYTES);
    return {
      externalId: this.firstLines.externalIdAt(this.entries[at]),
      listingId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      renewalDue: (this.flags[at] & RENEWAL_DUE) !== 0,
    };
  }

  /** Whether `line` was found by its hash and writes nothing: unchanged, or renewed only if due. */
  writesNothing(line: number, renewing: boolean): boolean {
    const other = this.others.get(line);
    if (other) return !(renewing && other.renewalDue);
    const at = this.find(line);
    return at >= 0 && !(renewing && (this.flags[at] & RENEWAL_DUE) !== 0);
  }

  delete(line: number): void {
    this.others.delete(line);
    const at = this.find(line);
    if (at >= 0) this.flags[at] |= DELETED;
  }

  /** The packed line's index, by binary search, or -1 (none, or deleted). */
  private find(line: number): number {
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.lines[middle];
      if (at === line) return (this.flags[middle] & DELETED) === 0 ? middle : -1;
      if (at < line) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  private grow(): void {
    const size = this.count + 1;
    this.lines = withRoom(this.lines, size);
    this.entries = withRoom(this.entries, size);
    this.flags = withRoom(this.flags, size);
    this.idRoom = withRoom(this.idRoom, size * UUID_BYTES);
    this.listingIds = bufferOf(this.idRoom);
  }
}
