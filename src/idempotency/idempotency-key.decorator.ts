import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { ValidationError } from '../common/errors/domain-error';
import { IDEMPOTENCY_HEADER } from './idempotent-response';

/** The optional Idempotency-Key header, 1–255 visible characters. */
export const IdempotencyKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => {
    const value = ctx.switchToHttp().getRequest<Request>().header(IDEMPOTENCY_HEADER);
    if (value === undefined) return undefined;
    if (!/^[\x21-\x7E]{1,255}$/.test(value)) {
      throw ValidationError.field(
        IDEMPOTENCY_HEADER,
        'Idempotency-Key must be 1–255 visible ASCII characters.',
      );
    }
    return value;
  },
);

/** Documents the optional header on an operation that honours it. */
export const ApiIdempotencyKey = () =>
  ApiHeader({
    name: IDEMPOTENCY_HEADER,
    required: false,
    description: '1–255 characters; answers are kept 24 h',
  });
