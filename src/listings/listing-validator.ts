import { Injectable } from '@nestjs/common';
import { FieldError, ValidationError } from '../common/errors/domain-error';
import { validateAttributes } from '../reference/attribute-validation';
import { ReferenceService } from '../reference/reference.service';
import type { ListingContent } from './listing-row';

const NOTHING_SKIPPED: ReadonlySet<string> = new Set();

/** Rules needing reference data or several fields; applied to the whole listing after a write. */
@Injectable()
export class ListingValidator {
  constructor(private readonly reference: ReferenceService) {}

  assertValid(content: ListingContent): void {
    const errors = this.check(content);
    if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
  }

  /**
   * Every reference-data error of the listing. The `skip`ped fields were refused for their shape
   * already: they are not checked, nor what depends on them (a skipped or unknown category
   * leaves the attributes unchecked, a skipped or unknown län leaves only the kommun's existence).
   */
  check(content: ListingContent, skip: ReadonlySet<string> = NOTHING_SKIPPED): FieldError[] {
    const errors: FieldError[] = [];
    if (!skip.has('categorySlug')) {
      const category = this.reference.category(content.categorySlug);
      if (!category) {
        errors.push({
          field: 'categorySlug',
          message: `categorySlug '${content.categorySlug}' is not a category from GET /v1/categories`,
        });
      } else if (!category.isLeaf) {
        errors.push({
          field: 'categorySlug',
          message: `categorySlug '${content.categorySlug}' has sub-categories; choose one of them`,
        });
      } else if (!skip.has('attributes')) {
        errors.push(...validateAttributes(category.attributes, content.attributes));
      }
    }
    const lanKnown = !skip.has('locationLan') && this.reference.isLan(content.locationLan);
    if (!skip.has('locationLan') && !lanKnown) {
      errors.push({
        field: 'locationLan',
        message: `locationLan '${content.locationLan}' is not a län slug from GET /v1/locations`,
      });
    }
    if (!skip.has('locationKommun')) {
      const lanOfKommun = this.reference.lanOf(content.locationKommun);
      if (lanOfKommun === undefined) {
        errors.push({
          field: 'locationKommun',
          message: `locationKommun '${content.locationKommun}' is not a kommun slug from GET /v1/locations`,
        });
      } else if (lanKnown && lanOfKommun !== content.locationLan) {
        errors.push({
          field: 'locationKommun',
          message: `locationKommun '${content.locationKommun}' lies in ${lanOfKommun}, not in ${content.locationLan}`,
        });
      }
    }
    return errors;
  }
}
