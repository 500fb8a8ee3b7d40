/** What DeleteObject answers: the marker's version id (or the version id deleted) and whether it was a marker. */
export interface DeleteResult {
  versionId?: string;
  deleteMarker: boolean;
}

/**
 * One key's answer of DeleteObjects: what DeleteObject would have answered, or the error it
 * would have thrown (mapped to the key's S3 error by the gateway).
 */
export type DeleteOutcome = { ok: true; result: DeleteResult } | { ok: false; error: unknown };
