import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { notAllowedField, ValidationError } from '../errors/domain-error';
import { asJsonObject } from './validation.pipe';

const API_PATH = '/v1/';

/** What a route reads of the request, from its handler's parameters. */
interface Reads {
  query: boolean;
  /** its body, or the whole request (a route that reads the body itself, such as an upload) */
  body: boolean;
}

function readsOf(controller: object, handler: string): Reads {
  // Nest keeps a handler's parameters on its controller class, under the method's name.
  const args: Record<string, unknown> =
    Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {};
  const types = new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
  return {
    query: types.has(RouteParamtypes.QUERY),
    body: types.has(RouteParamtypes.BODY) || types.has(RouteParamtypes.REQUEST),
  };
}

/**
 * Input a route does not read is refused, naming it, as the validation pipe refuses unknown
 * fields where a route reads some: a query parameter (`?limt=5`) on a route that takes none, and
 * a field sent to an action that takes no body (`sold {"soldAt": …}`). No body, or `{}`, is none.
 */
@Injectable()
export class UnreadInputInterceptor implements NestInterceptor {
  private readonly reads = new WeakMap<object, Reads>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    // The API's routes; health probes are the infrastructure's, whatever they append.
    if (context.getType() === 'http' && req.path.startsWith(API_PATH)) {
      const handler = context.getHandler();
      let reads = this.reads.get(handler);
      if (reads === undefined)
        this.reads.set(handler, (reads = readsOf(context.getClass(), handler.name)));
      const query = reads.query ? [] : Object.keys(req.query ?? {});
      if (query.length > 0) throw ValidationError.merged(query.map(notAllowedField))!;
      const body = reads.body || req.body === undefined ? [] : Object.keys(asJsonObject(req.body));
      if (body.length > 0)
        throw new ValidationError(body.map(notAllowedField), 'This action takes no body.');
    }
    return next.handle();
  }
}
