import {
  Body,
  Controller,
  Delete,
  HttpCode,
  Patch,
  Post,
  Req,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Request } from 'express';
import { ApiBearerAuth, ApiConsumes, ApiTags } from '@nestjs/swagger';
import { memoryStorage } from 'multer';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { MultipartIntegers } from '../common/http/multipart-integers.interceptor';
import { Operation } from '../common/http/operation.decorator';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { ImageResponse } from '../listings/dto/listing.response';
import { AddImageDto } from './dto/add-image.dto';
import { GalleryResponse } from './dto/image.response';
import { ReorderImagesDto } from './dto/reorder-images.dto';
import { MAX_UPLOAD_BYTES } from './image-processor';
import { ImagesService } from './images.service';
import { ImageUploadInterceptor } from './image-upload.interceptor';
import { imageSourceOf } from './upload-source';

@ApiTags('images')
@ApiBearerAuth()
@Controller('listings/:id/images')
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  /** One image by URL, base64 or multipart upload; `order` is a wish, the answer has the real position. */
  @Post()
  @Operation('addListingImage', 'Add an image by URL, base64 or file upload', {
    201: { data: 'ListingImage' },
  })
  @Scopes('listings:write')
  @ApiConsumes('application/json', 'multipart/form-data')
  @UseInterceptors(
    ImageUploadInterceptor,
    FileInterceptor('file', {
      storage: memoryStorage(),
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 5 },
    }),
    MultipartIntegers('order'),
  )
  add(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @Body() dto: AddImageDto,
    @UploadedFile() file: Express.Multer.File | undefined,
    @Req() req: Request,
  ): Promise<ImageResponse> {
    return this.images.add(
      ownerScopeOf(principal),
      id,
      imageSourceOf(dto, file?.buffer, Boolean(req.is('multipart/form-data'))),
      dto.order,
    );
  }

  /** Every image id exactly once, in the new order; the first becomes the primary image. */
  @Patch('reorder')
  @Operation('reorderListingImages', "Put a listing's images in a new order", {
    200: { data: 'Gallery' },
  })
  @Scopes('listings:write')
  reorder(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @Body() dto: ReorderImagesDto,
  ): Promise<GalleryResponse> {
    return this.images.reorder(ownerScopeOf(principal), id, dto.imageIds);
  }

  /** A failed image is processed again from its first try: 202 with the image, now pending. */
  @Post(':imageId/retry')
  @Operation('retryListingImage', 'Queue a failed image to be fetched and rendered again', {
    202: { data: 'ListingImage' },
  })
  @HttpCode(202)
  @Scopes('listings:write')
  retry(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @UuidParam('imageId', 'Image') imageId: string,
  ): Promise<ImageResponse> {
    return this.images.retry(ownerScopeOf(principal), id, imageId);
  }

  @Delete(':imageId')
  @Operation('removeListingImage', 'Remove an image from a listing', { 200: { data: 'Gallery' } })
  @HttpCode(200)
  @Scopes('listings:write')
  remove(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', 'Listing') id: string,
    @UuidParam('imageId', 'Image') imageId: string,
  ): Promise<GalleryResponse> {
    return this.images.remove(ownerScopeOf(principal), id, imageId);
  }
}
