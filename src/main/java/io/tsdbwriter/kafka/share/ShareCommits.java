package io.tsdbwriter.kafka.share;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;

/**
 * A share consumer's synchronous commit of a round's acknowledgements (KIP-932 {@code commitSync}), for
 * {@link ShareWorker}: the partitions whose acknowledgements the broker refused, each logged once. Stateless; called on
 * the worker's poll thread only (a {@link KafkaShareConsumer} is single-threaded).
 */
final class ShareCommits {

    private ShareCommits() {}

    /**
     * Commits what the consumer acknowledged; a {@link WakeupException} (the stop's wakeup) is consumed and the commit
     * tried again, so the round's acknowledgements still go.
     *
     * @param name the worker's name, for the log
     * @param log  the worker's logger (the lines stay under its name)
     * @return the partitions whose acknowledgements were not committed: their records are delivered again
     */
    static Set<TopicPartition> commit(KafkaShareConsumer<byte[], byte[]> c, String name, Logger log) {
        Map<TopicIdPartition, Optional<KafkaException>> result;
        try {
            result = c.commitSync();
        } catch (WakeupException e) {
            result = c.commitSync();
        }
        Set<TopicPartition> failed = new HashSet<>();
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> e : result.entrySet()) {
            if (e.getValue().isPresent()) {
                failed.add(e.getKey().topicPartition());
                log.warn(
                        "{}: acknowledgements of {} not committed ({}): its records are delivered again (written twice: "
                                + "harmless for a TSDB that deduplicates)",
                        name,
                        e.getKey(),
                        e.getValue().get().toString());
            }
        }
        return failed;
    }
}
