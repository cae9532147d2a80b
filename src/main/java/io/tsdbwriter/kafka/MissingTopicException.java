package io.tsdbwriter.kafka;

import java.util.regex.Pattern;

/** A topic named by {@code --topic} does not exist (the writer never creates topics). */
public final class MissingTopicException extends RuntimeException {
    public MissingTopicException(String topic) {
        super("topic '" + topic + "' does not exist (the writer never creates topics): check --topic");
    }

    private MissingTopicException(String message, Void unused) {
        super(message);
    }

    /** No topic matches {@code --topic-pattern}. */
    public static MissingTopicException noMatch(Pattern pattern) {
        return new MissingTopicException(
                "no topic matches --topic-pattern '" + pattern.pattern()
                        + "' (the writer never creates topics): check the pattern",
                null);
    }
}
