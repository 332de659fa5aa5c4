import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { LimitQueryDto } from '../../common/pagination/page-query.dto';
import { ACCESS_REQUEST_STATUSES, type AccessRequestStatus } from '../access-request';

/** A cursor list, oldest first: `limit` as on every list, `after` the last id of the previous page. */
export class ListAccessRequestsQueryDto extends LimitQueryDto {
  @IsIn(ACCESS_REQUEST_STATUSES)
  @IsOptional()
  status?: AccessRequestStatus;

  /** an access request id from an earlier page: the page starts after it */
  @IsUUID('all', { message: 'after must be an access request id from an earlier page' })
  @IsOptional()
  after?: string;
}
