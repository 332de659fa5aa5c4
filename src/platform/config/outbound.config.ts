import { registerAs } from '@nestjs/config';
import { IsBoolean } from 'class-validator';
import { ToBool } from './config-transforms';
import { validateConfig } from './validate-config';

/** Requests to integrators' URLs (webhooks; image and feed fetches): the address rule's switch. */
class OutboundEnv {
  @ToBool() @IsBoolean() FETCH_ALLOW_PRIVATE_TARGETS: boolean = false;
}

export interface OutboundConfig {
  /** lifts the address rule (only globally routable unicast targets): tests and local development */
  allowPrivateTargets: boolean;
}

export const outboundConfig = registerAs('outbound', (): OutboundConfig => {
  const env = validateConfig(process.env, OutboundEnv);
  return { allowPrivateTargets: env.FETCH_ALLOW_PRIVATE_TARGETS };
});
