import { registerAs } from '@nestjs/config';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { resolve } from 'node:path';
import { ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class StorageEnv {
  @IsString() @MinLength(1) STORAGE_DIR: string = './storage';
  /** uploads decoded and re-encoded at once per process; the others wait their turn */
  @ToInt() @IsInt() @Min(1) @Max(64) IMAGE_DECODE_CONCURRENCY: number = 2;
}

export interface StorageConfig {
  dir: string;
  decodeConcurrency: number;
}

export const storageConfig = registerAs('storage', (): StorageConfig => {
  const env = validateConfig(process.env, StorageEnv);
  return { dir: resolve(env.STORAGE_DIR), decodeConcurrency: env.IMAGE_DECODE_CONCURRENCY };
});
