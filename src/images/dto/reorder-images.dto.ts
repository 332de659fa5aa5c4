import { ArrayMaxSize, IsArray, IsUUID } from 'class-validator';

export class ReorderImagesDto {
  /** every image id of the listing, exactly once, in the desired order; the first becomes primary */
  @IsUUID('all', { each: true })
  @ArrayMaxSize(30)
  @IsArray()
  imageIds: string[];
}
