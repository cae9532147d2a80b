package io.tsdbwriter.deadletter;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Why a dead-letter send failed for good, when neither a stub nor a retry helps (DESIGN §2): the reason tag of
 * {@code tsdbwriter_dead_letter_failures_total{reason}} and what the operator should fix. Immutable; stateless lookup.
 *
 * @param reason the failure's tag
 * @param fix    what to do about it, for the stuck record's line
 */
record SendFailure(String reason, String fix) {

    /** The reason and fix of a failure that is neither too large nor retriable. */
    static SendFailure of(Exception ex) {
        if (ex instanceof AuthorizationException) {
            return new SendFailure("authorization", "grant this client's principal WRITE and DESCRIBE on the topic");
        } else if (ex instanceof AuthenticationException) {
            return new SendFailure("authentication", "check the Kafka credentials");
        } else if (ex instanceof UnknownTopicOrPartitionException) {
            return new SendFailure("unknown_topic", "create the topic (the writer never creates topics)");
        } else if (ex instanceof InvalidConfigurationException || ex instanceof ConfigException) {
            return new SendFailure("invalid_config", "check the Kafka client settings of the dead-letter producer");
        } else if (ex instanceof InvalidTopicException) {
            return new SendFailure("invalid_topic", "name an existing, valid --dead-letter-topic");
        } else {
            return new SendFailure("error", "see the error");
        }
    }
}
