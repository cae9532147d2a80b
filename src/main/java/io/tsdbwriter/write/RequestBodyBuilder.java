package io.tsdbwriter.write;

import io.tsdbwriter.wire.ByteBuf;

/**
 * Builds the request body actually sent from a batch's body, once per request: Remote-Write 2.0's symbol table is a
 * property of a whole request, so its body is built from the batch's 1.0 body when the request is prepared
 * ({@code io.tsdbwriter.encode.remotewrite.RemoteWrite2Request#fromV1}, wired by the application: the write path
 * does not depend on the encoders). Implementations are thread-safe.
 */
@FunctionalInterface
public interface RequestBodyBuilder {

    /**
     * @param body   the batch's body, {@code body[0, length)}
     * @return the body to compress and send (a new buffer)
     * @throws IllegalArgumentException when {@code body} is not what the encoders write
     */
    ByteBuf build(byte[] body, int length);
}
