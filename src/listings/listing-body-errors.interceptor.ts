import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { ownerScopeOf } from '../auth/scope';
import { normalizeText, ShapeValidationError } from '../common/http/validation.pipe';
import { CreateListingDto } from './dto/create-listing.dto';
import { UpdateListingDto } from './dto/update-listing.dto';
import { ListingsService } from './listings.service';

/**
 * The global pipe refuses a listing body for its shape before the handler runs. This adds the
 * checks the service makes of the well-formed fields (reference data and attributes; for a
 * PATCH those of the merged listing, for a PUT its path), so the 400 names every field error
 * at once. Anything else passes through unchanged.
 */
@Injectable()
export class ListingBodyErrors implements NestInterceptor {
  constructor(private readonly listings: ListingsService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError(async (error: unknown) => {
        throw await this.complete(context.switchToHttp().getRequest(), error);
      }),
    );
  }

  private async complete(req: AuthenticatedRequest, error: unknown): Promise<unknown> {
    const patch = ShapeValidationError.checkedOf(error, UpdateListingDto);
    const id = req.params.id;
    if (patch && req.principal && typeof id === 'string')
      return this.listings.patchErrorOne(ownerScopeOf(req.principal), id, patch);
    const body = ShapeValidationError.checkedOf(error, CreateListingDto);
    if (!body) return error;
    const externalId = normalizeText(req.params.externalId);
    return typeof externalId === 'string'
      ? this.listings.upsertBodyError(externalId, body)
      : this.listings.bodyError(body);
  }
}
