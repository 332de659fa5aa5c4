import { Injectable } from '@nestjs/common';
import { FieldError, ValidationError } from '../common/errors/domain-error';
import { validateAttributes } from '../reference/attribute-validation';
import { ReferenceService } from '../reference/reference.service';
import type { ListingContent } from './listing-row';

/** Rules needing reference data or several fields; applied to the whole listing after a write. */
@Injectable()
export class ListingValidator {
  constructor(private readonly reference: ReferenceService) {}

  assertValid(content: ListingContent): void {
    const errors = this.check(content);
    if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
  }

  private check(content: ListingContent): FieldError[] {
    const errors: FieldError[] = [];
    const category = this.reference.category(content.categorySlug);
    if (!category) {
      errors.push({
        field: 'categorySlug',
        message: `categorySlug '${content.categorySlug}' is not a category from GET /categories`,
      });
    } else if (!category.isLeaf) {
      errors.push({
        field: 'categorySlug',
        message: `categorySlug '${content.categorySlug}' has sub-categories; choose one of them`,
      });
    } else {
      errors.push(...validateAttributes(category.attributes, content.attributes));
    }
    if (!this.reference.isLan(content.locationLan)) {
      errors.push({
        field: 'locationLan',
        message: `locationLan '${content.locationLan}' is not a län slug from GET /locations`,
      });
    } else {
      const lanOfKommun = this.reference.lanOf(content.locationKommun);
      if (lanOfKommun === undefined) {
        errors.push({
          field: 'locationKommun',
          message: `locationKommun '${content.locationKommun}' is not a kommun slug from GET /locations`,
        });
      } else if (lanOfKommun !== content.locationLan) {
        errors.push({
          field: 'locationKommun',
          message: `locationKommun '${content.locationKommun}' lies in ${lanOfKommun}, not in ${content.locationLan}`,
        });
      }
    }
    return errors;
  }
}
