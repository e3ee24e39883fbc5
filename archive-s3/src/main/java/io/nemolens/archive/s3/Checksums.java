package io.nemolens.archive.s3;

import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;

/** When the client sends checksums of what it uploads, and checks those of what it reads. */
public enum Checksums {

    /**
     * Only where an operation requires one: works with every S3-compatible store, also those that do not know
     * the newest AWS checksum headers (their uploads would fail otherwise).
     */
    WHEN_REQUIRED(RequestChecksumCalculation.WHEN_REQUIRED, ResponseChecksumValidation.WHEN_REQUIRED),

    /** Wherever an operation supports one (the SDK's own default; AWS S3 and stores that keep up with it). */
    WHEN_SUPPORTED(RequestChecksumCalculation.WHEN_SUPPORTED, ResponseChecksumValidation.WHEN_SUPPORTED);

    private final RequestChecksumCalculation requests;
    private final ResponseChecksumValidation responses;

    Checksums(RequestChecksumCalculation requests, ResponseChecksumValidation responses) {
        this.requests = requests;
        this.responses = responses;
    }

    /** The SDK's setting for requests. */
    public RequestChecksumCalculation requests() {
        return requests;
    }

    /** The SDK's setting for responses. */
    public ResponseChecksumValidation responses() {
        return responses;
    }
}
