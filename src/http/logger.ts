/** Structured logging (pino). Credentials are redacted wherever they might appear. */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'password', '*.password', 'url_with_credentials', 'target', '*.target'],
      censor: '[redacted]',
    },
  }, destination);
}
