import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
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
  categories(): Paginated<CategoryNode> {
    return wholeList(this.reference.categories());
  }

  /** Sweden's 21 län with their kommuner (SCB codes and slugs). */
  @Get('locations')
  locations(): Paginated<LocationNode> {
    return wholeList(this.reference.locations());
  }
}
