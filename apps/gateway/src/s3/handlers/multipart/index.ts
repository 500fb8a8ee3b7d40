export * from './abort-multipart-upload.handler';
export * from './complete-multipart-upload.handler';
export * from './create-multipart-upload.handler';
export * from './list-multipart-uploads.handler';
export * from './list-parts.handler';
export * from './upload-part.handler';
