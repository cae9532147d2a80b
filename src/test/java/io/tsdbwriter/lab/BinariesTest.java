package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BinariesTest {

    @TempDir
    Path dir;

    @Test
    void locatesAnExplicitBinaryOnlyWhenExecutable() throws Exception {
        Path f = Files.writeString(dir.resolve("peer"), "#!/bin/sh\n");
        assertThat(Binaries.locate(f, "TSDB_WRITER_NO_SUCH_VARIABLE", "peer")).isEmpty();
        assertThat(f.toFile().setExecutable(true)).isTrue();
        assertThat(Binaries.locate(f, "TSDB_WRITER_NO_SUCH_VARIABLE", "peer")).contains(f);
    }
}
