/** Injection tokens of the S3 core services (interfaces in @ostore/s3/core). */
export { BUCKETS_SERVICE, OBJECTS_SERVICE, MULTIPART_SERVICE, USERS_SERVICE } from '@ostore/s3/core';
