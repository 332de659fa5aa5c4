import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../errors/error-code';
import { NO_SNIFF } from '../../platform/http/no-sniff';
import { REQUEST_ID_HEADER } from '../../platform/logging/request-id';
import { errorEnvelopeWith } from './envelope';

const UNREADABLE = { field: 'headers', message: 'The request is not valid HTTP.' };
const REQUEST_LINE = { field: 'request', message: 'The request line is not valid HTTP.' };
const INVALID_FRAMING = {
  field: 'body',
  message: 'The body is not framed as HTTP requires (its Content-Length or chunked encoding).',
};

/** What the parser's error says of the request (llhttp's codes), and which part it names. */
const PARSER_ERRORS: Record<string, { field: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { field: 'headers', message: 'The request headers are too large.' },
  HPE_INVALID_HEADER_TOKEN: {
    field: 'headers',
    message: 'The request is not valid HTTP: a header holds a character it may not.',
  },
  HPE_INVALID_METHOD: REQUEST_LINE,
  HPE_INVALID_URL: REQUEST_LINE,
  HPE_INVALID_VERSION: REQUEST_LINE,
  HPE_INVALID_CONSTANT: REQUEST_LINE,
  HPE_INVALID_CHUNK_SIZE: INVALID_FRAMING,
  HPE_INVALID_CONTENT_LENGTH: INVALID_FRAMING,
  HPE_UNEXPECTED_CONTENT_LENGTH: INVALID_FRAMING,
  HPE_INVALID_TRANSFER_ENCODING: INVALID_FRAMING,
};

/**
 * Requests Node's HTTP parser refuses before any route sees them (a control character in a
 * header, headers over the size limit, a garbled request line or body framing) are answered in
 * the envelope too, 400 naming the part, instead of Node's bare 400 or 431. Anything else (a
 * timeout, a reset) closes as Node would.
 */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || !error.code?.startsWith('HPE_')) return void socket.destroy();
    const { field, message } = PARSER_ERRORS[error.code] ?? UNREADABLE;
    // Every answer carries its request id, as the request-id middleware gives the others.
    const meta = { requestId: randomUUID(), timestamp: new Date().toISOString() };
    const body = JSON.stringify(
      errorEnvelopeWith(meta, ErrorCode.VALIDATION_ERROR, message, [{ field, message }]),
    );
    socket.end(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `${REQUEST_ID_HEADER}: ${meta.requestId}\r\n${NO_SNIFF.name}: ${NO_SNIFF.value}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
