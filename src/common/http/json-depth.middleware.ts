import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors/domain-error';

/** Deeper than any body of this API; far below what recursive validators can walk safely. */
export const MAX_JSON_DEPTH = 32;

/** Depth of a parsed JSON value, measured without recursion so a hostile body cannot overflow it. */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

export function jsonDepthMiddleware(req: Request, _res: Response, next: NextFunction): void {
  if (jsonDepthExceeds(req.body, MAX_JSON_DEPTH)) {
    return next(
      ValidationError.field('body', `The body is nested more than ${MAX_JSON_DEPTH} levels deep.`),
    );
  }
  next();
}
