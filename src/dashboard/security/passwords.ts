import { hash, verify } from '@node-rs/argon2';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;
const STRONG_ENOUGH = 3;

/** argon2id, OWASP's second recommendation: 19 MiB, 2 passes, 1 lane. */
// `Algorithm` is a const enum, which isolated modules (the tests) cannot inline: 2 is Argon2id.
const ARGON2 = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/** Never throws: a malformed hash is a wrong password. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password, ARGON2);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/** A hash to verify against for an unknown email, so both answers cost one argon2 run. */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword('not a password of anyone: the unknown-email stand-in');
  return dummy;
}

let factory: Promise<ZxcvbnFactory> | undefined;
/**
 * Loaded at its first use: its dictionaries are ~11 MB of heap in a process that imports them,
 * and the workers, which import this module with the rest, never check a password.
 */
function estimator(): Promise<ZxcvbnFactory> {
  factory ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]).then(
    ([{ ZxcvbnFactory }, common, en]) =>
      new ZxcvbnFactory({
        translations: en.translations,
        graphs: common.adjacencyGraphs,
        dictionary: { ...common.dictionary, ...en.dictionary },
      }),
  );
  return factory;
}

/**
 * Why a password is refused, or undefined: 12–128 characters, and a strength estimate of at
 * least 3 (of 4) given what the estimator knows plus the user's own words (email, company).
 */
export async function passwordProblem(
  password: string,
  userInputs: string[] = [],
): Promise<string | undefined> {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  const result = (await estimator()).check(password, userInputs.filter(Boolean));
  if (result.score >= STRONG_ENOUGH) return undefined;
  const { warning, suggestions } = result.feedback;
  const reason = [warning, ...suggestions].filter(Boolean).join(' ');
  return `This password is too easy to guess.${reason ? ` ${reason}` : ''}`;
}
