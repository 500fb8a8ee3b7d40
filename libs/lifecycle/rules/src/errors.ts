/** The S3 error codes a lifecycle configuration is refused with. */
export type LifecycleErrorCode = 'MalformedXML' | 'InvalidArgument' | 'InvalidRequest';

/** AWS's one message for every MalformedXML, whatever the fault; the fault itself goes to `detail`. */
export const MALFORMED_XML_MESSAGE =
  'The XML you provided was not well-formed or did not validate against our published schema';

/**
 * A refused lifecycle configuration. `code` and `message` are what S3 answers (the gateway turns
 * them into the error document with `S3Error.fromCode(code, message)`); `detail` says, for logs,
 * which element was at fault when the message is the generic MalformedXML one.
 */
export class LifecycleConfigurationError extends Error {
  constructor(
    readonly code: LifecycleErrorCode,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'LifecycleConfigurationError';
  }

  static malformed(detail: string): LifecycleConfigurationError {
    return new LifecycleConfigurationError('MalformedXML', MALFORMED_XML_MESSAGE, detail);
  }

  static invalidArgument(message: string): LifecycleConfigurationError {
    return new LifecycleConfigurationError('InvalidArgument', message);
  }

  static invalidRequest(message: string): LifecycleConfigurationError {
    return new LifecycleConfigurationError('InvalidRequest', message);
  }
}
