/** JSON text rendered by PostgreSQL, sent as is: parsing and serialising it again costs CPU for nothing. */
export class RawJson {
  constructor(readonly text: string) {}
}
