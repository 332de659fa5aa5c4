import { IsOptional, Matches } from 'class-validator';
import { LimitQueryDto } from '../../common/pagination/page-query.dto';

/** Newest first: `limit` as on every list, `after` the previous page's `nextCursor`. */
export class AuditQueryDto extends LimitQueryDto {
  @Matches(/^[1-9][0-9]{0,17}$/, {
    message: 'after must be an audit entry id from an earlier page',
  })
  @IsOptional()
  after?: string;
}
