import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../errors/error-code';
import { REQUEST_ID_HEADER } from '../../platform/logging/request-id';
import { errorEnvelopeWith } from './envelope';

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
    // Every answer carries its request id, as the request-id middleware gives the others.
    const meta = { requestId: randomUUID(), timestamp: new Date().toISOString() };
    const body = JSON.stringify(
      errorEnvelopeWith(meta, ErrorCode.VALIDATION_ERROR, message, [{ field: 'headers', message }]),
    );
    socket.end(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `${REQUEST_ID_HEADER}: ${meta.requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
