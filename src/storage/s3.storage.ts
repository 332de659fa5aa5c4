import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCode } from '../common/errors/error-code';
import { errorEnvelope } from '../common/http/envelope';
import type { S3Config } from '../platform/config/storage.config';
import { MEDIA_CACHE_MAX_AGE_S, MEDIA_PATH, mediaKey, StorageDriver } from './storage-driver';

const CACHE_CONTROL = `public, max-age=${MEDIA_CACHE_MAX_AGE_S}, immutable`;
/**
 * What the images service generates (uuid.ext); anything else is not ours to look up. One path
 * segment without `..`, so `<prefix><key>` cannot leave the prefix, however a server reads it.
 */
const KEY = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/**
 * Image URLs stay {PUBLIC_BASE_URL}/media/<key> whatever the driver, so handed-out URLs work. The
 * bucket may be shared: every object is written at `<S3_PREFIX><key>`, and /media/<key> reads only
 * there, so no other object of the bucket is ever served.
 */
export class S3Storage implements StorageDriver, OnApplicationShutdown {
  private readonly logger = new Logger(S3Storage.name);
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(
    s3: S3Config,
    private readonly mediaBaseUrl: string,
    private readonly mediaPublicBaseUrl: string | undefined,
  ) {
    this.bucket = s3.bucket;
    this.prefix = s3.prefix;
    this.client = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: s3.forcePathStyle,
      credentials: s3.credentials,
      // Checksums only where S3 requires them: several S3-compatible servers reject or ignore
      // the SDK's newer default checksum headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.objectKey(key),
        Body: data,
        ContentType: contentType,
        CacheControl: CACHE_CONTROL,
      }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return Buffer.from(await object.Body!.transformToByteArray());
    } catch (error) {
      if ((error as S3ServiceException).$metadata?.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers a missing key as deleted too.
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
    );
  }

  async putPrivate(key: string, data: Readable): Promise<void> {
    await new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.privateKey(key), Body: data },
    }).done();
  }

  async readPrivate(key: string): Promise<Readable> {
    const object = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: this.privateKey(key) }),
    );
    return object.Body as Readable;
  }

  async deletePrivate(key: string): Promise<void> {
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.bucket, Key: this.privateKey(key) }),
    );
  }

  /**
   * Outside the media prefix, which MEDIA_PUBLIC_BASE_URL may make public, and still named by it,
   * so services sharing a bucket keep apart.
   */
  private privateKey(key: string): string {
    return `private/${this.prefix}${key}`;
  }

  publicUrl(key: string): string {
    return `${this.mediaBaseUrl}${MEDIA_PATH}/${key}`;
  }

  mediaHandler(): RequestHandler {
    return (req, res, next) => {
      const key = mediaKey(req.originalUrl);
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !KEY.test(key)) return next();
      // MEDIA_PUBLIC_BASE_URL is the bucket's (or its CDN's) root: the object is under the prefix.
      if (this.mediaPublicBaseUrl)
        return res.redirect(302, `${this.mediaPublicBaseUrl}/${this.objectKey(key)}`);
      this.stream(key, req, res, next).catch((error: unknown) => this.failed(error, req, res));
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.client.destroy();
  }

  private async stream(key: string, req: Request, res: Response, next: NextFunction) {
    const input = {
      Bucket: this.bucket,
      Key: this.objectKey(key),
      IfNoneMatch: req.headers['if-none-match'],
    };
    let object;
    try {
      object =
        req.method === 'HEAD'
          ? await this.client.send(new HeadObjectCommand(input))
          : await this.client.send(new GetObjectCommand(input));
    } catch (error) {
      const status = (error as S3ServiceException).$metadata?.httpStatusCode;
      if (status === 304)
        return void res.status(304).setHeader('Cache-Control', CACHE_CONTROL).end();
      // Missing: on to the 404 in the envelope, as with files on disk.
      if (status === 404) return next();
      throw error;
    }
    res.status(200);
    res.setHeader('Cache-Control', CACHE_CONTROL);
    if (object.ContentType) res.setHeader('Content-Type', object.ContentType);
    if (object.ContentLength !== undefined) res.setHeader('Content-Length', object.ContentLength);
    if (object.ETag) res.setHeader('ETag', object.ETag);
    if (object.LastModified) res.setHeader('Last-Modified', object.LastModified.toUTCString());
    const body = 'Body' in object ? (object.Body as Readable | undefined) : undefined;
    if (!body) return void res.end();
    await pipeline(body, res);
  }

  /** The bucket key of a media key: under the prefix, never outside it. */
  private objectKey(key: string): string {
    if (!KEY.test(key)) throw new Error(`Not a media key: ${JSON.stringify(key)}`);
    return `${this.prefix}${key}`;
  }

  private failed(error: unknown, req: Request, res: Response): void {
    this.logger.error({ err: error }, 'Reading from the bucket failed');
    if (res.headersSent) return void res.destroy();
    res.status(500).json(errorEnvelope(req, ErrorCode.SERVER_ERROR, 'The file could not be read.'));
  }
}
