import { IsIn } from 'class-validator';
import { KEY_ROLL_GRACE_NAMES, type KeyRollGrace } from '../../accounts/key-roll-grace';

export class RollKeyDto {
  /** how long the old key keeps working: 0 (now), 1h, 24h or 7d */
  @IsIn(KEY_ROLL_GRACE_NAMES, {
    message: `grace must be one of ${KEY_ROLL_GRACE_NAMES.join(', ')}`,
  })
  grace: KeyRollGrace;
}
