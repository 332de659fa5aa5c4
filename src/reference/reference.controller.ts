import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CategoryNode, LocationNode, ReferenceService } from './reference.service';

/** Reference data is readable with any valid key, whatever its scopes. */
@ApiTags('reference')
@ApiBearerAuth()
@Controller()
export class ReferenceController {
  constructor(private readonly reference: ReferenceService) {}

  /** All categories with their sub-categories; leaves carry the attributes a listing may set. */
  @Get('categories')
  categories(): CategoryNode[] {
    return this.reference.categories();
  }

  /** Sweden's 21 län with their kommuner (SCB codes and slugs). */
  @Get('locations')
  locations(): LocationNode[] {
    return this.reference.locations();
  }
}
