package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.wire.Output;
import org.junit.jupiter.api.Test;

/** A 2.0 receiver's written counts: native histograms are counted apart from samples, the writer counts both. */
class HistogramsWrittenTest {

    @Test
    void histogramsWrittenAddToSamplesWritten() {
        assertThat(RemoteWriteVersion.written("3", "17")).isEqualTo("20");
        assertThat(RemoteWriteVersion.written("3", null)).isEqualTo("3");
        assertThat(RemoteWriteVersion.written(null, "17")).isNull();
        assertThat(RemoteWriteVersion.written("x", "17")).isEqualTo("x");
    }

    @Test
    void aRequestOfHistogramsOnlyIsWrittenWhenTheReceiverCountsThemAsHistograms() {
        WriteOutcome ok =
                ResponseClassifier.classifyRemoteWrite2(204, null, "", null, 20, RemoteWriteVersion.written("0", "20"));
        assertThat(ok).isEqualTo(ResponseClassifier.classify(Output.REMOTE_WRITE, 204, null, "", null));
        WriteOutcome partial =
                ResponseClassifier.classifyRemoteWrite2(204, null, "", null, 20, RemoteWriteVersion.written("0", "19"));
        assertThat(partial.kind()).isEqualTo(WriteOutcome.Kind.REJECTED);
    }
}
