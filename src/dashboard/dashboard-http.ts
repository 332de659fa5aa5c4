import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { urlencoded, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { ASSETS_PATH, AssetManifest } from './web/assets';
import { DashboardExceptionFilter } from './web/dashboard-exception.filter';
import { DashboardViews } from './web/views';

export const DASHBOARD_ROUTE = 'dashboard';
/** Forms are small: the largest is a few fields of text. */
export const FORM_BODY_LIMIT = '16kb';

/** Exactly as the design says: no inline script or style anywhere, no framing, no base. */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** helmet's other headers; the CSP is set as written above (helmet would drop the spaces). */
const securityHeaders = helmet({
  contentSecurityPolicy: false,
  // What frame-ancestors 'none' says, for browsers that read only the older header.
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // The API's own HSTS policy (if any) is the proxy's; the dashboard adds none of its own.
  strictTransportSecurity: false,
});

/**
 * The dashboard's HTTP pipeline, before its routes (configureApp calls it when the module is
 * on): helmet with the CSP, `no-store` unless an asset says otherwise, the hashed assets, then
 * cookies and urlencoded forms. Bodies under /dashboard are read here only.
 */
export function configureDashboard(app: NestExpressApplication): void {
  const views = app.get(DashboardViews);
  const filter = new DashboardExceptionFilter(views);
  const base = `/${DASHBOARD_ROUTE}`;
  app.use(base, securityHeaders);
  app.use(base, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use(ASSETS_PATH, serveAssets(views.assets));
  app.use(base, cookieParser());
  const parseForm = urlencoded({ extended: false, limit: FORM_BODY_LIMIT, parameterLimit: 50 });
  app.use(base, (req: Request, res: Response, next: NextFunction) =>
    parseForm(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { status?: number }).status === 413 ? 413 : 400;
      filter.sendErrorPage(req, res, status);
    }),
  );
}

function serveAssets(manifest: AssetManifest) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const asset = manifest.file(req.path.replace(/^\//, ''));
    if (!asset) return next();
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(asset.contentType).send(asset.body);
  };
}
