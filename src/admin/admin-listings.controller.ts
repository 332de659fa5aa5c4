import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { AdminApi } from './admin-token.guard';
import { AdminListingsService } from './admin-listings.service';
import { FavoritedDto, MessageReceivedDto } from '../listings/dto/listing-activity.dto';
import { RemoveListingDto } from './dto/admin-listing.dto';

@AdminApi()
@Controller('admin/listings')
export class AdminListingsController {
  constructor(private readonly admin: AdminListingsService) {}

  /** Moderation: REMOVED, with event listing.removed. */
  @Post(':id/remove')
  @HttpCode(200)
  remove(@UuidParam('id', 'Listing') id: string, @Body() dto: RemoveListingDto) {
    return this.admin.remove(id, dto.reason);
  }

  /** A buyer wrote to the seller: event message.received. */
  @Post(':id/messages')
  messageReceived(@UuidParam('id', 'Listing') id: string, @Body() dto: MessageReceivedDto) {
    return this.admin.messageReceived(id, dto);
  }

  /** Someone saved the listing: event listing.favorited. */
  @Post(':id/favorites')
  favorited(@UuidParam('id', 'Listing') id: string, @Body() dto: FavoritedDto) {
    return this.admin.favorited(id, dto);
  }
}
