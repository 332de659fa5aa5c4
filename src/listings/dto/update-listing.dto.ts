import { PartialType } from '@nestjs/swagger';
import { CreateListingDto } from './create-listing.dto';

/** Only the fields to change; each is validated as on create. `null` clears an optional field. */
export class UpdateListingDto extends PartialType(CreateListingDto) {}
