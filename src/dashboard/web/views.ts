import { Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import type { Response } from 'express';
import { join } from 'node:path';
import { AssetManifest } from './assets';
import { csrfTokenOf, DashboardRequest } from './dashboard-context';
import { formats } from './format';
import { FormState } from './form';

export const VIEWS_DIR = join(__dirname, '..', 'views');

/** The navigation, in order; a page marks itself current with `nav: '<key>'`. */
export const NAV = [
  { key: 'overview', label: 'Overview', href: '/dashboard' },
  { key: 'keys', label: 'Keys', href: '/dashboard/keys' },
  { key: 'usage', label: 'Usage', href: '/dashboard/usage' },
  { key: 'webhooks', label: 'Webhooks', href: '/dashboard/webhooks' },
  { key: 'imports', label: 'Imports', href: '/dashboard/imports' },
  { key: 'sandbox', label: 'Sandbox', href: '/dashboard/sandbox' },
  { key: 'members', label: 'Members', href: '/dashboard/members' },
  { key: 'security-log', label: 'Security log', href: '/dashboard/security-log' },
] as const;

/** Fixed notices a redirect may ask for (`?notice=`): never text taken from the URL. */
const NOTICES: Record<string, string> = {
  verified: 'Your email is verified.',
  'verification-sent': 'We sent a new verification link. It works for 24 hours.',
  'verification-held':
    'We already sent you several verification links in the last hour, so we did not send another. Use the newest one, or ask again later.',
  'password-reset': 'Your password is changed. Sign in with the new one.',
  'password-changed': 'Your password is changed. Your other sessions were signed out.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out everywhere.',
  'reset-sent':
    'If that email belongs to a user, we sent a link to choose a new password. It works for 1 hour.',
  'session-ended': 'Your session ended. Sign in again to continue.',
  // Access request and keys
  'access-requested': 'Your access request is sent. We email you when staff have decided.',
  'access-updated': 'Your access request is changed.',
  'key-revoked': 'The key is revoked. Requests with it are refused within 5 seconds.',
};

export interface PageData {
  title: string;
  /** the nav entry to mark current, for pages behind sign-in */
  nav?: string;
  form?: FormState;
  [key: string]: unknown;
}

/**
 * Renders the dashboard's Eta templates (src/dashboard/views, escaping on). Every page gets the
 * request's context (`it.ctx`), its CSRF token (`it.csrfToken`), the hashed asset URLs
 * (`it.assets`), the Swedish formats (`it.fmt`), the nav and an empty form state.
 */
@Injectable()
export class DashboardViews {
  readonly assets = new AssetManifest();
  private readonly eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true });

  render(req: DashboardRequest, template: string, data: PageData): string {
    const notice = typeof req.query?.notice === 'string' ? NOTICES[req.query.notice] : undefined;
    return this.eta.render(template, {
      ctx: req.dashboard,
      csrfToken: csrfTokenOf(req),
      assets: this.assets.urls(),
      fmt: formats,
      navItems: NAV,
      notice,
      path: req.originalUrl.split('?')[0],
      form: FormState.empty(),
      ...data,
    });
  }

  /** Sends a page (200 unless `status`); pages with account data are never stored by caches. */
  send(res: Response, req: DashboardRequest, template: string, data: PageData, status = 200): void {
    res
      .status(status)
      .type('html')
      .send(this.render(req, template, data));
  }

  /** 303 See Other: after a POST, the browser GETs the target. */
  redirect(res: Response, location: string): void {
    res.redirect(303, location);
  }
}
