import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { PathErrorPages } from '../../common/http/path-error-pages';
import { requestIdOf } from '../../platform/logging/request-id';
import type { DashboardRequest } from './dashboard-context';
import {
  DashboardForbidden,
  EmailVerificationRequired,
  PasswordConfirmationRequired,
  SignInRequired,
} from './dashboard-errors';
import { DashboardViews } from './views';

const PAGES: Record<number, { title: string; message: string }> = {
  400: { title: 'Bad request', message: 'The request could not be read.' },
  403: { title: 'Not allowed', message: 'You cannot do this here.' },
  404: { title: 'Page not found', message: 'There is no such page here, or it is not yours.' },
  413: { title: 'Too large', message: 'The form was larger than the dashboard accepts.' },
  429: { title: 'Too many attempts', message: 'Wait a minute, then try again.' },
  500: {
    title: 'Something went wrong',
    message: 'The page could not be shown. Try again; if it keeps failing, contact support.',
  },
};

/**
 * The dashboard's answers to errors: HTML pages and redirects, never the API's envelope. Its
 * controllers use it directly; as the app's PathErrorPages it also answers what Nest raises
 * outside them under /dashboard (an unknown path: the 404 page).
 */
@Catch()
export class DashboardExceptionFilter extends PathErrorPages implements ExceptionFilter {
  private readonly logger = new Logger('Dashboard');

  constructor(private readonly views: DashboardViews) {
    super();
  }

  owns(path: string): boolean {
    // Express matches routes without regard to case, so /Dashboard/x is the dashboard's too.
    return /^\/dashboard(\/|$)/i.test(path);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<DashboardRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    if (exception instanceof SignInRequired) {
      const query = new URLSearchParams();
      if (exception.next) query.set('next', exception.next);
      if (exception.ended) query.set('notice', 'session-ended');
      const signIn = `/dashboard/sign-in${query.size > 0 ? `?${query}` : ''}`;
      // htmx would swap the sign-in page into the fragment it asked for: it loads it whole.
      if (req.headers['hx-request'] === 'true') {
        res.setHeader('HX-Redirect', signIn);
        res.status(204).end();
        return;
      }
      return this.views.redirect(res, signIn);
    }
    if (exception instanceof EmailVerificationRequired)
      return this.views.redirect(res, '/dashboard/verify-email');
    if (exception instanceof PasswordConfirmationRequired)
      return this.views.redirect(
        res,
        `/dashboard/confirm-password?next=${encodeURIComponent(exception.next)}`,
      );
    const { status, message, retryAfter } = this.classify(exception, req);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    this.sendErrorPage(req, res, status, message);
  }

  /** Also the answer of an unknown /dashboard path and of a body the parser refused. */
  sendErrorPage(req: DashboardRequest, res: Response, status: number, message?: string): void {
    const page = PAGES[status] ?? PAGES[500];
    res.setHeader('Cache-Control', 'no-store');
    this.views.send(
      res,
      req,
      'error',
      { title: page.title, status, message: message ?? page.message },
      status,
    );
  }

  private classify(
    exception: unknown,
    req: DashboardRequest,
  ): { status: number; message?: string; retryAfter?: number } {
    if (exception instanceof DashboardForbidden) return { status: 403, message: exception.message };
    if (exception instanceof DomainError) {
      switch (exception.code) {
        case ErrorCode.NOT_FOUND:
          return { status: 404 };
        case ErrorCode.FORBIDDEN:
          return { status: 403, message: exception.message };
        case ErrorCode.RATE_LIMITED:
          return {
            status: 429,
            message: exception.message,
            retryAfter: (exception as { retryAfterSeconds?: number }).retryAfterSeconds,
          };
        case ErrorCode.VALIDATION_ERROR:
          return { status: 400, message: exception.message };
        default:
          break;
      }
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      // Nest's answer to an unknown path under /dashboard.
      const status = exception.getStatus();
      return { status: PAGES[status] ? status : 400 };
    }
    this.logger.error(
      { err: exception, requestId: requestIdOf(req), method: req.method, path: req.path },
      'Unhandled dashboard error',
    );
    return { status: 500 };
  }
}
