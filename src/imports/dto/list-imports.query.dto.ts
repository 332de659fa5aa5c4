import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { IMPORT_STATUSES, ImportStatus } from '../imports.store';

export class ListImportsQueryDto extends PageQueryDto {
  /** only imports in this status */
  @IsIn(IMPORT_STATUSES, { message: `status must be one of: ${IMPORT_STATUSES.join(', ')}` })
  @IsOptional()
  status?: ImportStatus;
}
