/**
 * JSON text that PostgreSQL has already rendered, sent on as it is: the API neither parses it nor
 * serialises it again. For large pages whose rows the API would only pass through, where the
 * parse and the stringify are most of the request's CPU.
 */
export class RawJson {
  constructor(readonly text: string) {}
}
