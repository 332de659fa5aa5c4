import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ValidationError } from '../errors/domain-error';

const API_PATH = '/v1/';

/** Whether a handler reads the query (a `@Query()` parameter): the pipe then checks its keys. */
function readsQuery(controller: object, handler: string): boolean {
  // Nest keeps a handler's parameters on its controller class, under the method's name.
  const args: Record<string, unknown> =
    Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {};
  return Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.QUERY));
}

/**
 * A query parameter that a route does not take is refused, naming it, as unknown parameters are
 * where a route takes some (the validation pipe): a typo such as `?limt=5` never passes unseen.
 */
@Injectable()
export class UnknownQueryInterceptor implements NestInterceptor {
  private readonly takesQuery = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    // The API's routes; health probes are the infrastructure's, whatever they append.
    if (context.getType() === 'http' && req.path.startsWith(API_PATH)) {
      const handler = context.getHandler();
      let takes = this.takesQuery.get(handler);
      if (takes === undefined)
        this.takesQuery.set(handler, (takes = readsQuery(context.getClass(), handler.name)));
      const sent = Object.keys(req.query ?? {});
      if (!takes && sent.length > 0)
        throw new ValidationError(
          sent.map((field) => ({ field, message: `${field} is not an allowed field` })),
          `${sent[0]} is not an allowed field`,
        );
    }
    return next.handle();
  }
}
