import { Account } from '../accounts/account.entity';
import { ApiKey } from '../accounts/api-key.entity';
import { CategoryRow, KommunRow, LanRow } from '../reference/reference.entities';

export const ENTITIES = [Account, ApiKey, LanRow, KommunRow, CategoryRow];
