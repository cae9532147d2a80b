package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourcesTest {

    @Test
    void closesTheLastRegisteredFirstAndSkipsNulls() {
        List<String> closed = new ArrayList<>();
        Resources parts = new Resources();
        parts.onClose(() -> closed.add("finished"));
        parts.add(() -> closed.add("metrics"));
        assertThat(parts.add((AutoCloseable) null)).isNull();
        AutoCloseable writer = () -> closed.add("writer");
        assertThat(parts.add(writer)).isSameAs(writer);
        parts.onClose(() -> closed.add("reporter"));

        parts.close();

        assertThat(closed).containsExactly("reporter", "writer", "metrics", "finished");
    }

    @Test
    void aCloseThatThrowsEndsTheClosingAndPropagates() {
        List<String> closed = new ArrayList<>();
        Resources parts = new Resources();
        parts.onClose(() -> closed.add("finished"));
        parts.add(() -> {
            throw new IllegalStateException("client");
        });
        parts.add(() -> closed.add("writer"));

        assertThatThrownBy(parts::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("client");
        assertThat(closed).containsExactly("writer");
    }

    @Test
    void aCheckedExceptionPropagatesWrapped() {
        Resources parts = new Resources();
        Exception checked = new Exception("checked");
        parts.add(() -> {
            throw checked;
        });

        assertThatThrownBy(parts::close)
                .isInstanceOf(IllegalStateException.class)
                .hasCause(checked);
    }
}
