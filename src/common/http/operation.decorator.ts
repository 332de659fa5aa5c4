import { ApiExtension } from '@nestjs/swagger';

/** A success answer's body, named as in components.schemas; the document wraps it in its envelope. */
export type Answer =
  /** `{success, data: <schema>, meta}` */
  | { data: string }
  /** `{success, data: <schema>[], pagination: Pagination, meta}` */
  | { page: string }
  /** `{success, data: <schema>[], pagination: CursorPagination, meta}` */
  | { cursor: string };

export interface OperationSpec {
  operationId: string;
  summary: string;
  success: Partial<Record<200 | 201 | 202, Answer>>;
  /** error statuses beyond those src/openapi/document.ts derives from the route */
  extraErrors?: number[];
}

/**
 * Carries the spec to src/openapi/document.ts through Nest's document. Not ApiOperation: the
 * Swagger plugin writes the handler's doc comment over its summary.
 */
const EXTENSION = 'x-operation';

/**
 * What the OpenAPI document says of a route beyond Nest's: a stable, readable operationId (the
 * typed client is generated from it: renaming one breaks integrators' code), a summary, and each
 * success status's body. The handler's doc comment becomes the description. The document refuses
 * to build with a route lacking it, so a new route cannot ship undocumented.
 */
export const Operation = (
  operationId: string,
  summary: string,
  success: OperationSpec['success'],
  { extraErrors }: Pick<OperationSpec, 'extraErrors'> = {},
) =>
  ApiExtension(EXTENSION, { operationId, summary, success, extraErrors } satisfies OperationSpec);

/** The spec @Operation left on an operation of Nest's document, taken off it. */
export function takeOperationSpec(operation: object): OperationSpec | undefined {
  const carrier = operation as { [EXTENSION]?: OperationSpec };
  const spec = carrier[EXTENSION];
  delete carrier[EXTENSION];
  return spec;
}
