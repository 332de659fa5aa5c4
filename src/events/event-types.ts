/**
 * The one runtime description of each event's `data` (EVENT_FIELDS). TS payload types derive from
 * it; SQL-built events are checked against it by payloadProblems (event-payloads e2e spec).
 */
export const EVENT_NAMES = [
  'listing.created',
  'listing.updated',
  'listing.sold',
  'listing.expired',
  'listing.removed',
  'message.received',
  'listing.favorited',
  'import.held',
  'import.finished',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** The kinds of value a payload field holds; `timestamp` is ISO 8601 UTC with milliseconds. */
type FieldKind = 'uuid' | 'string' | 'string?' | 'boolean' | 'timestamp' | 'string[]' | 'counts';

/** An import's tallies; `lines` is null until the file has been read. */
export interface ImportCounts {
  lines: number | null;
  processed: number;
  created: number;
  updated: number;
  unchanged: number;
  renewed: number;
  restored: number;
  skipped: number;
  removed: number;
  failed: number;
  /** a mirror import's removals once planned (null before, and for upserts) */
  plannedRemovals: number | null;
}
const COUNT_KEYS = [
  'lines',
  'processed',
  'created',
  'updated',
  'unchanged',
  'renewed',
  'restored',
  'skipped',
  'removed',
  'failed',
  'plannedRemovals',
];

type FieldValue<K extends FieldKind> = K extends 'boolean'
  ? boolean
  : K extends 'counts'
    ? ImportCounts
    : K extends 'string[]'
      ? string[]
      : K extends 'string?'
        ? string | null
        : string;

const LISTING_REF = { id: 'uuid', externalId: 'string?', livemode: 'boolean' } as const;
const IMPORT_REF = {
  id: 'uuid',
  livemode: 'boolean',
  status: 'string',
  mode: 'string',
  dryRun: 'boolean',
  counts: 'counts',
} as const;

export const EVENT_FIELDS = {
  'listing.created': { ...LISTING_REF, status: 'string', updatedAt: 'timestamp' },
  'listing.updated': {
    ...LISTING_REF,
    status: 'string',
    updatedAt: 'timestamp',
    changedFields: 'string[]',
  },
  'listing.sold': { ...LISTING_REF, soldAt: 'timestamp' },
  'listing.expired': { ...LISTING_REF, expiredAt: 'timestamp' },
  'listing.removed': { ...LISTING_REF, removedAt: 'timestamp', reason: 'string?' },
  'message.received': {
    ...LISTING_REF,
    messageId: 'string',
    receivedAt: 'timestamp',
    preview: 'string?',
  },
  'listing.favorited': { ...LISTING_REF, favoritedAt: 'timestamp', userRef: 'string?' },
  'import.held': IMPORT_REF,
  'import.finished': IMPORT_REF,
} as const satisfies Record<EventName, Record<string, FieldKind>>;

export type EventPayloads = {
  [E in EventName]: {
    -readonly [F in keyof (typeof EVENT_FIELDS)[E]]: (typeof EVENT_FIELDS)[E][F] extends FieldKind
      ? FieldValue<(typeof EVENT_FIELDS)[E][F]>
      : never;
  };
};

export interface DomainEvent<E extends EventName = EventName> {
  accountId: string;
  event: E;
  data: EventPayloads[E];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const FIELD_CHECKS: Record<FieldKind, (value: unknown) => boolean> = {
  uuid: (value) => typeof value === 'string' && UUID.test(value),
  string: (value) => typeof value === 'string',
  'string?': (value) => value === null || typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
  timestamp: (value) => typeof value === 'string' && TIMESTAMP.test(value),
  'string[]': (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  counts: (value) =>
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === COUNT_KEYS.length &&
    COUNT_KEYS.every((key) => {
      const count = (value as Record<string, unknown>)[key];
      const nullable = key === 'lines' || key === 'plannedRemovals';
      return Number.isInteger(count) || (nullable && count === null);
    }),
};

/** Missing or unexpected keys and wrongly kinded values of `data`; empty when it matches. */
export function payloadProblems(event: string, data: Record<string, unknown>): string[] {
  if (!(EVENT_NAMES as readonly string[]).includes(event)) return [`unknown event ${event}`];
  const fields: Record<string, FieldKind> = EVENT_FIELDS[event as EventName];
  const missing = Object.keys(fields).filter((field) => !(field in data));
  const unexpected = Object.keys(data).filter((field) => !(field in fields));
  const wrong = Object.keys(fields).filter(
    (field) => field in data && !FIELD_CHECKS[fields[field]](data[field]),
  );
  return [
    ...missing.map((field) => `${event}: ${field} missing`),
    ...unexpected.map((field) => `${event}: ${field} unexpected`),
    ...wrong.map(
      (field) => `${event}: ${field} is ${JSON.stringify(data[field])}, not ${fields[field]}`,
    ),
  ];
}
