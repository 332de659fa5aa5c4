import { SetMetadata } from '@nestjs/common';
import type { Role } from '../security/roles';

export const DASHBOARD_ROLES = 'dashboard:roles';
export const DASHBOARD_ANONYMOUS = 'dashboard:anonymous';
export const DASHBOARD_UNVERIFIED = 'dashboard:unverified';

/**
 * Only these roles may use the route (POST routes that change the account's things): others get
 * 403, and so does everyone while the account is suspended.
 */
export const DashboardRole = (...roles: Role[]) => SetMetadata(DASHBOARD_ROLES, roles);

/** Open without a session (sign-in, sign-up, reset); forms use the pre-session CSRF cookie. */
export const DashboardAnonymous = () => SetMetadata(DASHBOARD_ANONYMOUS, true);

/** Open to a signed-in user whose email is not verified yet (the verification page, sign-out). */
export const DashboardUnverified = () => SetMetadata(DASHBOARD_UNVERIFIED, true);
