export class WebhookEndpointResponse {
  id: string;
  url: string;
  /** the mode of the key that created it; it receives only that mode's events */
  livemode: boolean;
  description: string | null;
  /** empty means every event */
  events: string[];
  isActive: boolean;
  /** failed attempts since the last successful delivery: a health signal, not the disable rule */
  consecutiveFailures: number;
  /** when the endpoint was last disabled, automatically or by PATCH isActive false */
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export class CreatedWebhookEndpointResponse extends WebhookEndpointResponse {
  /** `whsec_…`, the signing secret; shown in this answer only */
  secret: string;
}
