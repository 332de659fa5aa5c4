/** JSON text rendered by PostgreSQL, sent as is: re-serialising was most of a large page's CPU. */
export class RawJson {
  constructor(readonly text: string) {}
}
