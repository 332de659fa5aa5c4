import { registerAs } from '@nestjs/config';
import { IsString, MinLength } from 'class-validator';
import { resolve } from 'node:path';
import { validateConfig } from './validate-config';

class StorageEnv {
  @IsString() @MinLength(1) STORAGE_DIR: string = './storage';
}

export interface StorageConfig {
  dir: string;
}

export const storageConfig = registerAs('storage', (): StorageConfig => {
  const env = validateConfig(process.env, StorageEnv);
  return { dir: resolve(env.STORAGE_DIR) };
});
