package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3Options tunes an S3 store; the zero value is the default.
type S3Options struct {
	// PartSize is the size of the parts a Put uploads an object in when it
	// is larger than one part (multipart upload). 0 means 16 MiB; S3 wants
	// at least 5 MiB.
	PartSize int64
}

const (
	defaultPartSize = 16 << 20
	minPartSize     = 5 << 20
)

// S3 is a Store in an S3-compatible bucket, under a key prefix. Conditional
// puts map to PutObject's If-None-Match: * and If-Match headers, which
// answer 412 when the condition fails; they send the body in one request,
// so their objects (manifests, not segments) must fit in memory and in one
// PUT (5 GiB). Put uploads larger objects in parts.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or ending in "/"
	partSize int64
}

// NewS3 returns the store for bucket/prefix, configured from the standard
// AWS settings (config.LoadDefaultConfig): AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE and the shared
// config files, instance roles, and AWS_ENDPOINT_URL (or
// AWS_ENDPOINT_URL_S3) for S3-compatible servers. With an endpoint set the
// client addresses buckets path-style (http://host/bucket/key), which local
// and most S3-compatible servers need, and the region defaults to
// us-east-1.
func NewS3(ctx context.Context, bucket, prefix string, opts S3Options) (*S3, error) {
	if bucket == "" {
		return nil, errors.New("objstore: empty bucket name")
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := checkKey(prefix); err != nil {
			return nil, fmt.Errorf("objstore: prefix: %w", err)
		}
		prefix += "/"
	}
	partSize := opts.PartSize
	if partSize == 0 {
		partSize = defaultPartSize
	}
	if partSize < minPartSize {
		return nil, fmt.Errorf("objstore: part size %d is below S3's minimum of %d bytes", partSize, minPartSize)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("objstore: AWS configuration: %w", err)
	}
	var missingRegion bool
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// Objects written by other tools may carry no checksum; reading
		// them is not worth a log line each.
		o.DisableLogOutputChecksumValidationSkipped = true
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
			if o.Region == "" {
				o.Region = "us-east-1"
			}
		}
		missingRegion = o.Region == ""
	})
	if missingRegion {
		return nil, errors.New("objstore: no AWS region: set AWS_REGION (or AWS_ENDPOINT_URL for an S3-compatible server)")
	}
	return &S3{client: client, bucket: bucket, prefix: prefix, partSize: partSize}, nil
}

// objectKey maps a checked key to the bucket's key.
func (s *S3) objectKey(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// Get implements Store.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return nil, Info{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return nil, Info{}, s.err("get", key, err)
	}
	return out.Body, Info{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag)}, nil
}

// GetRange implements Store.
func (s *S3) GetRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if off < 0 || n <= 0 {
		return nil, fmt.Errorf("objstore: range %d+%d of %q: %w", off, n, key, ErrInvalidRange)
	}
	k, err := s.objectKey(key)
	if err != nil {
		return nil, err
	}
	rng := fmt.Sprintf("bytes=%d-%d", off, off+n-1)
	// A stored checksum covers the whole object, not a range: S3 sends none
	// with a ranged GET, and a server that sends the whole object's must not
	// fail the read.
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k, Range: &rng}, func(o *s3.Options) {
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	if err != nil {
		return nil, s.err("get", key, err)
	}
	return out.Body, nil
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return Info{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return Info{}, s.err("stat", key, err)
	}
	return Info{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag)}, nil
}

// Put implements Store: an object of up to one part goes up in one
// PutObject, a larger one in a multipart upload of sequential parts, which
// is aborted if any part fails.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (Info, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return Info{}, err
	}
	var part bytes.Buffer
	if _, err := io.CopyN(&part, r, s.partSize); err == io.EOF {
		return s.putObject(ctx, key, k, part.Bytes(), nil)
	} else if err != nil {
		return Info{}, fmt.Errorf("objstore: put %q: %w", key, err)
	}
	return s.putMultipart(ctx, key, k, &part, r)
}

// PutIfAbsent implements Store with If-None-Match: *.
func (s *S3) PutIfAbsent(ctx context.Context, key string, r io.Reader) (Info, error) {
	return s.putConditional(ctx, key, r, func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
}

// PutIfMatch implements Store with If-Match: etag. AWS answers 404 rather
// than 412 when there is no object to match (some S3-compatible servers
// answer 412): either way the condition failed.
func (s *S3) PutIfMatch(ctx context.Context, key string, r io.Reader, etag string) (Info, error) {
	info, err := s.putConditional(ctx, key, r, func(in *s3.PutObjectInput) { in.IfMatch = aws.String(etag) })
	if errors.Is(err, ErrNotExist) {
		return Info{}, fmt.Errorf("objstore: put-if-match %q: no object: %w", key, ErrPreconditionFailed)
	}
	return info, err
}

// putConditional sends r in one conditional PutObject. S3 answers 409
// ConditionalRequestConflict while another conditional write of the key is
// in flight and asks for a retry, which then sees that write's outcome.
func (s *S3) putConditional(ctx context.Context, key string, r io.Reader, cond func(*s3.PutObjectInput)) (Info, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return Info{}, err
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return Info{}, fmt.Errorf("objstore: put %q: %w", key, err)
	}
	backoff := 10 * time.Millisecond
	for {
		info, err := s.putObject(ctx, key, k, body, cond)
		if httpStatus(err) != http.StatusConflict {
			return info, err
		}
		select {
		case <-ctx.Done():
			return Info{}, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// putObject sends body in one PutObject, with cond's headers if not nil.
func (s *S3) putObject(ctx context.Context, key, k string, body []byte, cond func(*s3.PutObjectInput)) (Info, error) {
	in := &s3.PutObjectInput{Bucket: &s.bucket, Key: &k, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}
	if cond != nil {
		cond(in)
	}
	out, err := s.client.PutObject(ctx, in)
	if err != nil {
		return Info{}, s.err("put", key, err)
	}
	return Info{Key: key, Size: int64(len(body)), ETag: aws.ToString(out.ETag)}, nil
}

// putMultipart uploads first and then the rest of r in parts of partSize.
func (s *S3) putMultipart(ctx context.Context, key, k string, first *bytes.Buffer, r io.Reader) (info Info, err error) {
	up, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return Info{}, s.err("put", key, err)
	}
	defer func() {
		if err != nil {
			// Abort even when ctx is what failed, so no parts linger.
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			s.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: &k, UploadId: up.UploadId})
		}
	}()
	var parts []s3types.CompletedPart
	var size int64
	part := first
	for num := int32(1); ; num++ {
		n := int64(part.Len())
		out, err := s.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &s.bucket, Key: &k, UploadId: up.UploadId, PartNumber: aws.Int32(num),
			Body: bytes.NewReader(part.Bytes()), ContentLength: aws.Int64(n),
		})
		if err != nil {
			return Info{}, s.err("put", key, err)
		}
		parts = append(parts, s3types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
		size += n
		part.Reset()
		if _, err := io.CopyN(part, r, s.partSize); err == io.EOF {
			if part.Len() == 0 {
				break
			}
		} else if err != nil {
			return Info{}, fmt.Errorf("objstore: put %q: %w", key, err)
		}
	}
	_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &s.bucket, Key: &k, UploadId: up.UploadId,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts},
	})
	if err != nil {
		return Info{}, s.err("put", key, err)
	}
	// Servers disagree on a multipart object's ETag (S3 answers the MD5 of
	// the parts' MD5s, some S3-compatible servers another value in one place
	// or the other): report the one that GET, HEAD and If-Match use.
	info, err = s.Stat(ctx, key)
	if err == nil && info.Size != size {
		err = fmt.Errorf("objstore: put %q: wrote %d bytes but the object has %d (replaced meanwhile?)", key, size, info.Size)
	}
	return info, err
}

// List implements Store with ListObjectsV2, one page (up to 1,000 keys) at
// a time.
func (s *S3) List(ctx context.Context, prefix string) iter.Seq2[Info, error] {
	return func(yield func(Info, error) bool) {
		p := s.prefix + prefix
		pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &p})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				yield(Info{}, s.err("list", prefix, err))
				return
			}
			for _, o := range page.Contents {
				info := Info{Key: strings.TrimPrefix(aws.ToString(o.Key), s.prefix), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)}
				if !yield(info, nil) {
					return
				}
			}
		}
	}
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	k, err := s.objectKey(key)
	if err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &k}); err != nil {
		if err := s.err("delete", key, err); !errors.Is(err, ErrNotExist) {
			return err
		}
	}
	return nil
}

// err wraps an S3 error, translating the answers the Store contract names:
// 404 for a missing key (not a missing bucket) to ErrNotExist, 412 to
// ErrPreconditionFailed and 416 to ErrInvalidRange.
func (s *S3) err(op, key string, err error) error {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket" {
		return fmt.Errorf("objstore: %s %q: bucket %q does not exist: %w", op, key, s.bucket, err)
	}
	switch httpStatus(err) {
	case http.StatusNotFound:
		return fmt.Errorf("objstore: %s %q: %w", op, key, ErrNotExist)
	case http.StatusPreconditionFailed:
		return fmt.Errorf("objstore: %s %q: %w", op, key, ErrPreconditionFailed)
	case http.StatusRequestedRangeNotSatisfiable:
		return fmt.Errorf("objstore: %s %q: %w", op, key, ErrInvalidRange)
	}
	return fmt.Errorf("objstore: %s %q: %w", op, key, err)
}

// httpStatus returns the HTTP status of a failed request, or 0.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
