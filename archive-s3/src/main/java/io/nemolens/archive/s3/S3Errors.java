package io.nemolens.archive.s3;

import java.io.IOException;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The SDK's exceptions as the archive's {@link IOException}s: each message names the operation, the object,
 * and either the store's answer (status code, S3 error code and message, request id) or, when there was none,
 * the endpoint and what went wrong on the way. Never credentials: the SDK puts none in its messages.
 */
final class S3Errors {

    /** S3's answer to a conditional write when the key holds an object ({@code If-None-Match: *}). */
    static final int PRECONDITION_FAILED = 412;

    static final int NOT_FOUND = 404;

    private S3Errors() {}

    /** Whether the store answered with this status. */
    static boolean hasStatus(SdkException e, int status) {
        return e instanceof AwsServiceException s && s.statusCode() == status;
    }

    /**
     * An {@link IOException} saying "{@code <operation> <target>: <status> <code> (<message>; request id <id>)}"
     * when the store answered, else "{@code <operation> <target> via <endpoint>: <what happened>}".
     */
    static IOException io(String operation, String target, String endpoint, SdkException e) {
        return new IOException(describe(operation, target, endpoint, e), e);
    }

    static String describe(String operation, String target, String endpoint, SdkException e) {
        if (e instanceof AwsServiceException s) {
            AwsErrorDetails details = s.awsErrorDetails();
            String code = details != null ? details.errorCode() : null;
            String message = details != null ? details.errorMessage() : null;
            StringBuilder text = new StringBuilder(operation)
                    .append(' ')
                    .append(target)
                    .append(": ")
                    .append(s.statusCode());
            if (code != null && !code.isEmpty()) {
                text.append(' ').append(code);
            }
            text.append(" (");
            if (message != null && !message.isEmpty()) {
                text.append(message).append("; ");
            }
            return text.append("request id ")
                    .append(s.requestId())
                    .append(", at ")
                    .append(endpoint)
                    .append(')')
                    .toString();
        }
        return operation + " " + target + " via " + endpoint + ": " + e.getMessage();
    }
}
