package io.nemolens.archive.s3;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A real client to the test's S3 server that fails chosen calls on the way (a part's upload, the completion,
 * the abort), as a network or a store does now and then, so that what the store does next can be checked
 * against the real server.
 */
final class FaultyS3Client implements S3Client {

    private final S3Client real;
    final AtomicInteger failPart = new AtomicInteger();
    final AtomicBoolean failCompletion = new AtomicBoolean();
    final AtomicBoolean failAbort = new AtomicBoolean();
    final AtomicInteger aborts = new AtomicInteger();

    FaultyS3Client(S3Client real) {
        this.real = real;
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
        if (request.partNumber() == failPart.get()) {
            throw SdkClientException.create("connection reset (injected)");
        }
        return real.uploadPart(request, body);
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
        if (failCompletion.get()) {
            throw S3Exception.builder()
                    .statusCode(500)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("InternalError")
                            .errorMessage("We encountered an internal error (injected)")
                            .build())
                    .build();
        }
        return real.completeMultipartUpload(request);
    }

    @Override
    public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
        aborts.incrementAndGet();
        if (failAbort.get()) {
            throw SdkClientException.create("connection refused (injected)");
        }
        return real.abortMultipartUpload(request);
    }

    @Override
    public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest request) {
        return real.createMultipartUpload(request);
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
        return real.putObject(request, body);
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest request) {
        return real.headObject(request);
    }

    @Override
    public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest request) {
        return real.listMultipartUploads(request);
    }

    @Override
    public S3ServiceClientConfiguration serviceClientConfiguration() {
        return real.serviceClientConfiguration();
    }

    @Override
    public String serviceName() {
        return real.serviceName();
    }

    @Override
    public void close() {
        real.close();
    }
}
