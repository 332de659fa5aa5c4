import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// s3rver ships no type declarations; this is the part of its API the tests use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
};

/**
 * A real S3-compatible server (s3rver) on 127.0.0.1 with one bucket, files in a temporary
 * directory. `env` is what the service needs to use it.
 */
export class TestS3Server {
  private constructor(
    private readonly server: InstanceType<typeof S3rver>,
    private readonly directory: string,
    readonly port: number,
    readonly bucket: string,
  ) {}

  static async start(bucket = 'listing-images'): Promise<TestS3Server> {
    const directory = mkdtempSync(join(tmpdir(), 'lsvc-s3-'));
    const server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    const { port } = await server.run();
    return new TestS3Server(server, directory, port, bucket);
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get env(): Record<string, string> {
    return {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: this.bucket,
      S3_ENDPOINT: this.endpoint,
      S3_REGION: 'us-east-1',
      // s3rver's fixed credentials
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
  }

  /** An object as stored, straight from the server (path-style URL, s3rver allows anonymous reads). */
  object(key: string): Promise<Response> {
    return fetch(`${this.endpoint}/${this.bucket}/${key}`);
  }

  /** Writes an object straight into the bucket, as another user of a shared bucket would. */
  async put(key: string, body: string | Buffer, contentType = 'image/jpeg'): Promise<void> {
    const client = new S3Client({
      region: this.env.S3_REGION,
      endpoint: this.endpoint,
      forcePathStyle: true,
      credentials: {
        accessKeyId: this.env.AWS_ACCESS_KEY_ID,
        secretAccessKey: this.env.AWS_SECRET_ACCESS_KEY,
      },
    });
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
        }),
      );
    } finally {
      client.destroy();
    }
  }

  async close(): Promise<void> {
    await this.server.close();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
