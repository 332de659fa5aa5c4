import { registerAs } from '@nestjs/config';
import { IsBoolean, IsIn, IsOptional, IsUrl } from 'class-validator';
import { ToBool } from '../platform/config/config-transforms';
import { validateConfig } from '../platform/config/validate-config';

export const SIGNUP_MODES = ['open', 'invite'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

class DashboardEnv {
  /** serve the account dashboard under /dashboard (API processes) */
  @ToBool() @IsBoolean() DASHBOARD_ENABLED: boolean = true;
  /** `open`: anyone may sign up; `invite`: only invited emails */
  @IsIn(SIGNUP_MODES) DASHBOARD_SIGNUP: SignupMode = 'open';
  /** the session cookie's Secure flag and __Host- prefix; false only for local http and tests */
  @ToBool() @IsBoolean() DASHBOARD_COOKIE_SECURE: boolean = true;
  /** where links in mails point (origin, no path); default PUBLIC_BASE_URL */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  DASHBOARD_BASE_URL?: string;
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL?: string;
}

export interface DashboardConfig {
  enabled: boolean;
  signup: SignupMode;
  cookieSecure: boolean;
  /** origin of the links in mails, without a trailing slash */
  baseUrl: string;
}

export const dashboardConfig = registerAs('dashboard', (): DashboardConfig => {
  const env = validateConfig(process.env, DashboardEnv);
  const base = env.DASHBOARD_BASE_URL ?? env.PUBLIC_BASE_URL ?? 'http://localhost:3000';
  return {
    enabled: env.DASHBOARD_ENABLED,
    signup: env.DASHBOARD_SIGNUP,
    cookieSecure: env.DASHBOARD_COOKIE_SECURE,
    baseUrl: base.replace(/\/+$/, ''),
  };
});
