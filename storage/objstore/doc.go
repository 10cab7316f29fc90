// Package objstore is the small object-store interface that cairn's durable
// files go through, with two homes: the local filesystem (Local, crash-safe
// by temp file, fsync and rename) and S3-compatible object storage (S3).
//
// The S3 side uses github.com/aws/aws-sdk-go-v2/service/s3 rather than
// minio-go: it exposes S3's conditional writes (If-None-Match: *, If-Match)
// as plain PutObject fields, its config package reads the standard AWS
// settings (AWS_ENDPOINT_URL, AWS_REGION, credentials, profiles, instance
// roles) exactly as other AWS tools do, and apache/iceberg-go, which cairn
// will use to register its tables, already builds on it, so the binary
// carries one S3 client rather than two.
package objstore
