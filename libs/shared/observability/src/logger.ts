import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

export type LogFields = Record<string, unknown>;

/**
 * Structured JSON logs, one object per line: `{time, level, app, context, msg, ...fields}`.
 * Implements Nest's LoggerService so framework logs come out the same way.
 */
export class JsonLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(app: string, level = 'info', destination?: pino.DestinationStream) {
    this.pino = pino(
      {
        level,
        base: { app },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        redact: {
          paths: ['secret', 'secretAccessKey', '*.secret', '*.secretAccessKey', 'authorization'],
          censor: '[redacted]',
        },
      },
      destination ?? pino.destination({ sync: false }),
    );
  }

  /** A logger bound to a context (the class name by convention). */
  forContext(context: string): ContextLogger {
    return new ContextLogger(this.pino.child({ context }));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  flush(): void {
    this.pino.flush();
  }

  /** Nest calls with (message, ...optionalParams, context?) — the last string is the context. */
  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    const params = [...rest];
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const fields: LogFields = context ? { context } : {};
    for (const p of params) {
      if (p instanceof Error) fields['err'] = { message: p.message, stack: p.stack };
      else if (typeof p === 'string') fields['stack'] = p;
      else if (p && typeof p === 'object') Object.assign(fields, p);
    }
    if (message instanceof Error) {
      this.pino[level](
        { ...fields, err: { message: message.message, stack: message.stack } },
        message.message,
      );
    } else if (message && typeof message === 'object') {
      this.pino[level]({ ...fields, ...(message as LogFields) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

/** Logger for one class: messages plus fields, never string-built. */
export class ContextLogger {
  constructor(private readonly pino: Pino) {}
  info(msg: string, fields: LogFields = {}): void {
    this.pino.info(fields, msg);
  }
  warn(msg: string, fields: LogFields = {}): void {
    this.pino.warn(fields, msg);
  }
  error(msg: string, fields: LogFields = {}): void {
    this.pino.error(normalizeErr(fields), msg);
  }
  debug(msg: string, fields: LogFields = {}): void {
    this.pino.debug(fields, msg);
  }
}

function normalizeErr(fields: LogFields): LogFields {
  const err = fields['err'];
  if (err instanceof Error)
    return { ...fields, err: { message: err.message, name: err.name, stack: err.stack } };
  return fields;
}
