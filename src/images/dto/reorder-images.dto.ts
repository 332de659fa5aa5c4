import { ArrayMaxSize, IsArray, IsUUID } from 'class-validator';

export class ReorderImagesDto {
  /** every image id of the listing, exactly once, in the desired order; the first becomes primary */
  @IsArray()
  @ArrayMaxSize(30)
  @IsUUID('all', { each: true })
  imageIds: string[];
}
