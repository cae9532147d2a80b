package io.tsdbwriter.amplify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one series-variant layout: which labels each variant gets, and the [N][len][bytes] walk. */
class SeriesVariantsTest {

    private static final SeriesVariants.VariantWriter PRINT = (names, values, count, out) -> {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < count; i++) {
            s.append(i == 0 ? "" : ",").append(names[i]).append('=').append(values[i]);
        }
        out.writeBytes(s.toString().getBytes(StandardCharsets.UTF_8));
    };

    private static List<String> variants(AmplificationPlan plan, String... labels) {
        String[] names = new String[labels.length / 2];
        String[] values = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = labels[2 * i];
            values[i] = labels[2 * i + 1];
        }
        byte[] layout = SeriesVariants.build(plan, names, values, 0, names.length, PRINT);
        List<String> out = new ArrayList<>();
        int pos = SeriesVariants.first(0);
        for (int j = 0; j < SeriesVariants.count(layout, 0); j++) {
            out.add(new String(layout, pos + 4, SeriesVariants.length(layout, pos), StandardCharsets.UTF_8));
            pos = SeriesVariants.next(layout, pos);
        }
        assertThat(pos).isEqualTo(layout.length);
        return out;
    }

    @Test
    void aPlainRelayIsAPlainCopy() {
        assertThat(variants(new AmplificationPlan(1, 1, 60_000), "job", "node")).containsExactly("job=node");
    }

    @Test
    void theInstanceLabelTakesItsPlaceInNameOrder() {
        assertThat(variants(new AmplificationPlan(1, 3, 60_000), "a", "1", "z", "2"))
                .containsExactly(
                        "a=1,instanceNo=unknown,z=2", "a=1,instanceNo=unknown-1,z=2", "a=1,instanceNo=unknown-2,z=2");
        assertThat(variants(new AmplificationPlan(1, 2, 60_000), "a", "1"))
                .containsExactly("a=1,instanceNo=unknown", "a=1,instanceNo=unknown-1");
    }

    @Test
    void anExistingInstanceLabelIsVariedInPlace() {
        assertThat(variants(new AmplificationPlan(1, 2, 60_000), "instanceNo", "h7", "job", "n"))
                .containsExactly("instanceNo=h7,job=n", "instanceNo=h7-1,job=n");
        assertThat(variants(new AmplificationPlan(1, 1, 60_000), "instanceNo", "h7"))
                .containsExactly("instanceNo=h7");
    }
}
