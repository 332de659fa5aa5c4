import { IsDefined, IsIn, IsString, IsUrl, MaxLength } from 'class-validator';
import { HasNoUserInfo, IsRequestableUrl } from '../../common/http/http-url.validator';
import { IsPlainText } from '../../common/http/plain-text.validator';
import type { ImportFormat } from '../imports.store';

/** An import of a feed the worker fetches, instead of a file in the body. */
export class ImportSourceDto {
  /** http or https, without user info (`user:pw@`); fetched through the same address rules as webhook targets */
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'sourceUrl must be an http or https URL' },
  )
  @IsRequestableUrl('sourceUrl must be an http or https URL')
  @HasNoUserInfo(
    'sourceUrl must not hold a user name or password (user:password@): it is stored and shown with the import',
  )
  @MaxLength(2048)
  @IsPlainText()
  @IsString({ message: 'sourceUrl must be an http or https URL' })
  @IsDefined({ message: 'sourceUrl is required' })
  sourceUrl: string;

  @IsIn(['ndjson', 'csv'], { message: 'format must be ndjson or csv' })
  @IsDefined({ message: 'format is required' })
  format: ImportFormat;
}
