import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ValidationError } from '../errors/domain-error';
import { asJsonObject } from './validation.pipe';

/**
 * An action that takes no body (sold, renew, a DELETE…) accepts none or `{}`. A field is refused
 * as an unknown field is anywhere else, so a caller who believes it set something (a `soldAt`, a
 * renew period) learns that it did not.
 */
@Injectable()
class NoBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<Request>().body;
    if (body !== undefined) {
      const fields = Object.keys(asJsonObject(body));
      if (fields.length > 0)
        throw new ValidationError(
          fields.map((field) => ({ field, message: `${field} is not an allowed field` })),
          'This action takes no body.',
        );
    }
    return next.handle();
  }
}

export const TakesNoBody = () => UseInterceptors(NoBodyInterceptor);
