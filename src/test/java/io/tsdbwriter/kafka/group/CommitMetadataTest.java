package io.tsdbwriter.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Test;

/** A commit carries the acknowledged watermark, so the partition's next reader knows what it reads again. */
class CommitMetadataTest {

    @Test
    void aCommitCarriesTheAcknowledgedWatermarkAndTheNextReaderReadsItBack() {
        OffsetAndMetadata om = OffsetCommits.commit(100, 140);
        assertThat(om.offset()).isEqualTo(100);
        assertThat(om.metadata()).isEqualTo("acked=140");
        assertThat(OffsetCommits.ackedOf(om)).isEqualTo(140);
        assertThat(OffsetCommits.ackedOf(OffsetCommits.commit(100, 90)))
                .as("never below the commit")
                .isEqualTo(100);
    }

    @Test
    void aCommitWithoutItOrByAnotherToolSaysNothingWasSentBefore() {
        assertThat(OffsetCommits.ackedOf(null)).isEqualTo(-1);
        assertThat(OffsetCommits.ackedOf(new OffsetAndMetadata(5))).isEqualTo(-1);
        assertThat(OffsetCommits.ackedOf(new OffsetAndMetadata(5, "kafka-consumer-groups reset")))
                .isEqualTo(-1);
        assertThat(OffsetCommits.ackedOf(new OffsetAndMetadata(5, "acked=x"))).isEqualTo(-1);
    }
}
