import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/** Throws naming every bad variable, so a bad deployment fails at start, not at first use. */
export function validateConfig<T extends object>(
  env: Record<string, string | undefined>,
  schema: new () => T,
): T {
  // An empty variable counts as unset, so the schema's default (its property initialiser) applies.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const instance = plainToInstance(schema, present, { enableImplicitConversion: false });
  const errors = validateSync(instance, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) =>
        `${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return instance;
}
