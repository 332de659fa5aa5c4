import type { Principal } from './principal';

/** Resolves a presented API key to its principal (null when unknown or revoked); accounts provides it. */
export abstract class KeyAuthenticator {
  abstract authenticate(key: string): Promise<Principal | null>;
}
