import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../errors/error-code';
import type { ErrorEnvelope } from './envelope';

/**
 * Requests Node's HTTP parser refuses before any route sees them (a control character in a
 * header, headers over the size limit) are answered in the envelope too, 400 on `headers`,
 * instead of Node's bare 400 or 431. Anything else (a timeout, a reset) closes as Node would.
 */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || !error.code?.startsWith('HPE_')) return void socket.destroy();
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large.'
        : 'The request is not valid HTTP (a header holds a character it may not).';
    const envelope: ErrorEnvelope = {
      success: false,
      error: {
        code: ErrorCode.VALIDATION_ERROR,
        message,
        details: [{ field: 'headers', message }],
      },
      meta: { requestId: randomUUID(), timestamp: new Date().toISOString() },
    };
    const body = JSON.stringify(envelope);
    socket.end(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
