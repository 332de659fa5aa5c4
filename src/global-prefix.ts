import { INestApplication, RequestMethod } from '@nestjs/common';
import { DASHBOARD_ROUTE } from './dashboard/dashboard-http';
import { QUEUE_DASHBOARD_ROUTE } from './queue-dashboard/queue-dashboard.module';
import { MEDIA_ROUTE } from './storage/storage-driver';

export const API_PREFIX = 'v1';

/** Routes under /v1 but health, media, the queue dashboard and the account dashboard: the app and the document export. */
export function setGlobalPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
      { path: MEDIA_ROUTE, method: RequestMethod.ALL },
      { path: QUEUE_DASHBOARD_ROUTE, method: RequestMethod.ALL },
      { path: `${QUEUE_DASHBOARD_ROUTE}/*path`, method: RequestMethod.ALL },
      { path: DASHBOARD_ROUTE, method: RequestMethod.ALL },
      { path: `${DASHBOARD_ROUTE}/*path`, method: RequestMethod.ALL },
    ],
  });
}
