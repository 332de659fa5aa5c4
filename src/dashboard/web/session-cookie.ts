import type { CookieOptions, Response } from 'express';
import type { DashboardRequest } from './dashboard-context';

const SESSION = 'lsvc_session';
const PRE_SESSION_CSRF = 'lsvc_csrf';
/** The session cookie lives as long as a session can (7 days); the server decides before that. */
const MAX_AGE_MS = 7 * 24 * 60 * 60_000;

/**
 * The dashboard's cookies. Secure ones take the `__Host-` prefix (Secure, Path=/, no Domain: the
 * browser refuses them from http and from other hosts); DASHBOARD_COOKIE_SECURE=false (local
 * http, tests) drops both.
 */
export class DashboardCookies {
  readonly session: string;
  readonly csrf: string;

  constructor(private readonly secure: boolean) {
    this.session = secure ? `__Host-${SESSION}` : SESSION;
    this.csrf = secure ? `__Host-${PRE_SESSION_CSRF}` : PRE_SESSION_CSRF;
  }

  private options(): CookieOptions {
    return { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' };
  }

  sessionToken(req: DashboardRequest): string | undefined {
    return req.cookies?.[this.session];
  }

  setSession(res: Response, token: string): void {
    res.cookie(this.session, token, { ...this.options(), maxAge: MAX_AGE_MS });
  }

  clearSession(res: Response): void {
    res.clearCookie(this.session, this.options());
  }

  preSessionCsrf(req: DashboardRequest): string | undefined {
    return req.cookies?.[this.csrf];
  }

  setPreSessionCsrf(res: Response, token: string): void {
    res.cookie(this.csrf, token, this.options());
  }
}
