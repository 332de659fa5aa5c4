import { registerAs } from '@nestjs/config';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { resolve } from 'node:path';
import { IsDuration, parseDuration, ToBool, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

export const STORAGE_DRIVERS = ['local', 's3'] as const;
export type StorageDriverName = (typeof STORAGE_DRIVERS)[number];

const HTTP_URL = { require_tld: false, protocols: ['http', 'https'] };
const S3_PREFIX_FORMAT = /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,62}\/){1,8}$/;

class StorageEnv {
  @IsIn(STORAGE_DRIVERS) STORAGE_DRIVER: StorageDriverName = 'local';
  @IsString() @MinLength(1) STORAGE_DIR: string = './storage';
  @ValidateIf((env: StorageEnv) => env.STORAGE_DRIVER === 's3')
  @IsString({ message: 'S3_BUCKET is required when STORAGE_DRIVER=s3' })
  S3_BUCKET?: string;
  /** an S3-compatible server (MinIO, s3rver, …); unset means AWS itself */
  @IsOptional() @IsUrl(HTTP_URL) S3_ENDPOINT?: string;
  @IsString() S3_REGION: string = 'us-east-1';
  /** bucket in the path, not the host name: what most S3-compatible servers need */
  @IsOptional() @ToBool() @IsBoolean() S3_FORCE_PATH_STYLE?: boolean;
  /**
   * where in the bucket the service's objects live, and all /media may serve of a shared bucket:
   * segments of safe characters, each ending in `/`, none starting with a dot (no `..`)
   */
  @Matches(S3_PREFIX_FORMAT, {
    message:
      'S3_PREFIX must be path segments of letters, digits, . _ - each ending in /, e.g. media/',
  })
  S3_PREFIX: string = 'media/';
  /** the standard AWS variables, read at start; unset: the SDK's chain (profile, instance role) */
  @IsOptional() @IsString() AWS_ACCESS_KEY_ID?: string;
  @ValidateIf((env: StorageEnv) => env.AWS_ACCESS_KEY_ID !== undefined)
  @IsString({ message: 'AWS_SECRET_ACCESS_KEY is required with AWS_ACCESS_KEY_ID' })
  AWS_SECRET_ACCESS_KEY?: string;
  @IsOptional() @IsString() AWS_SESSION_TOKEN?: string;
  /** where the bucket is public (a CDN): /media/<key> redirects there instead of streaming */
  @IsOptional() @IsUrl(HTTP_URL) MEDIA_PUBLIC_BASE_URL?: string;
  /** uploads decoded and re-encoded at once per process; the others wait their turn */
  @ToInt() @IsInt() @Min(1) @Max(64) IMAGE_DECODE_CONCURRENCY: number = 2;
  /** image uploads read and decoded at once per process (half of them for one key); others wait unread */
  @ToInt() @IsInt() @Min(1) @Max(64) IMAGE_UPLOADS_IN_FLIGHT: number = 4;
  /** an upload's body must have arrived this long after its slot was granted, or its connection closes */
  @IsDuration() IMAGE_UPLOAD_BODY_TIMEOUT: string = '60s';
}

export interface S3Config {
  bucket: string;
  /** every object the service writes is `<prefix><key>`; nothing else is served */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  credentials:
    { accessKeyId: string; secretAccessKey: string; sessionToken: string | undefined } | undefined;
}

export interface StorageConfig {
  driver: StorageDriverName;
  dir: string;
  /** set when driver is s3 */
  s3: S3Config | undefined;
  mediaPublicBaseUrl: string | undefined;
  decodeConcurrency: number;
  uploadsInFlight: number;
  uploadBodyTimeoutMs: number;
}

export const storageConfig = registerAs('storage', (): StorageConfig => {
  const env = validateConfig(process.env, StorageEnv);
  return {
    driver: env.STORAGE_DRIVER,
    dir: resolve(env.STORAGE_DIR),
    s3:
      env.STORAGE_DRIVER === 's3'
        ? {
            bucket: env.S3_BUCKET!,
            prefix: env.S3_PREFIX,
            endpoint: env.S3_ENDPOINT,
            region: env.S3_REGION,
            // Custom endpoints rarely have a wildcard DNS name per bucket.
            forcePathStyle: env.S3_FORCE_PATH_STYLE ?? env.S3_ENDPOINT !== undefined,
            credentials: env.AWS_ACCESS_KEY_ID
              ? {
                  accessKeyId: env.AWS_ACCESS_KEY_ID,
                  secretAccessKey: env.AWS_SECRET_ACCESS_KEY!,
                  sessionToken: env.AWS_SESSION_TOKEN,
                }
              : undefined,
          }
        : undefined,
    mediaPublicBaseUrl: env.MEDIA_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    decodeConcurrency: env.IMAGE_DECODE_CONCURRENCY,
    uploadsInFlight: env.IMAGE_UPLOADS_IN_FLIGHT,
    uploadBodyTimeoutMs: parseDuration(env.IMAGE_UPLOAD_BODY_TIMEOUT)!,
  };
});
