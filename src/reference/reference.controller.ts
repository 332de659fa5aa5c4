import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/http/operation.decorator';
import { Paginated, wholeList } from '../common/pagination/paginated';
import { CategoryNode, LocationNode, ReferenceService } from './reference.service';

/** Reference data is readable with any valid key, whatever its scopes. */
@ApiTags('reference')
@ApiBearerAuth()
@Controller()
export class ReferenceController {
  constructor(private readonly reference: ReferenceService) {}

  /** All categories with their sub-categories; leaves carry the attributes a listing may set. */
  @Get('categories')
  @Operation('listCategories', "Category tree with each leaf's attributes", {
    200: { page: 'Category' },
  })
  categories(): Paginated<CategoryNode> {
    return wholeList(this.reference.categories());
  }

  /** Sweden's 21 län with their kommuner (SCB codes and slugs). */
  @Get('locations')
  @Operation('listLocations', 'Counties (län) and their municipalities (kommuner)', {
    200: { page: 'Location' },
  })
  locations(): Paginated<LocationNode> {
    return wholeList(this.reference.locations());
  }
}
