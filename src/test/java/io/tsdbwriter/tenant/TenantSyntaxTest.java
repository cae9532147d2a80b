package io.tsdbwriter.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What each receiver accepts as a tenant: VictoriaMetrics cluster's numbers, Mimir's text. One case a line. */
class TenantSyntaxTest {

    static final TenantSyntax VM = TenantSyntax.ACCOUNT_ID;
    static final TenantSyntax TEXT = TenantSyntax.TEXT;

    /** syntax, text, null when valid or a phrase the refusal contains. */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(VM, "42:7", null),
                Arguments.of(VM, "4294967295", null),
                Arguments.of(VM, "0", null),
                Arguments.of(VM, "007", null),
                Arguments.of(VM, "4294967296", "accountID must be at most 4294967295"),
                Arguments.of(VM, "1:4294967296", "projectID must be at most 4294967295"),
                Arguments.of(VM, "-1", "accountID must be decimal digits"),
                Arguments.of(VM, "team-a", "'team-a' is not a tenant accountID[:projectID]"),
                Arguments.of(VM, "1:", "projectID must be 1 to 10 decimal digits"),
                Arguments.of(VM, ":1", "accountID"),
                Arguments.of(VM, "1:2:3", "projectID must be decimal digits"),
                Arguments.of(VM, "", "empty tenant"),
                Arguments.of(VM, "1\n", "'1?'"),
                Arguments.of(TEXT, "team-a", null),
                Arguments.of(TEXT, "42", null),
                Arguments.of(TEXT, "Team_B.prod", null),
                Arguments.of(TEXT, "a!b*c'(d)", null),
                Arguments.of(TEXT, "x".repeat(150), null),
                Arguments.of(TEXT, "x".repeat(151), "at most 150 characters"),
                Arguments.of(TEXT, "42:7", "only 0-9 a-z A-Z"),
                Arguments.of(TEXT, "team a", "only 0-9 a-z A-Z"),
                Arguments.of(TEXT, "team/a", "only 0-9 a-z A-Z"),
                Arguments.of(TEXT, ".", "'.' and '..' are not tenants"),
                Arguments.of(TEXT, "..", "'.' and '..' are not tenants"),
                Arguments.of(TEXT, "__mimir_cluster", "reserved"),
                Arguments.of(TEXT, "", "empty tenant"),
                Arguments.of(TEXT, "a\u0007", "'a?'"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void validOrRefusedWithItsReason(TenantSyntax syntax, String text, String refusal) {
        if (refusal == null) {
            assertThat(syntax.invalid(text)).isNull();
            assertThat(Tenant.parse(text, syntax, 3)).isEqualTo(new Tenant(text, 3));
        } else {
            assertThat(syntax.invalid(text)).contains(refusal);
            assertThatThrownBy(() -> Tenant.parse(text, syntax, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(refusal);
        }
    }

    @ParameterizedTest(name = "remote write {0}")
    @MethodSource("outputs")
    void theOutputChoosesTheSyntax(boolean remoteWrite, TenantSyntax expected) {
        assertThat(TenantSyntax.of(remoteWrite)).isEqualTo(expected);
    }

    static Stream<Arguments> outputs() {
        return Stream.of(Arguments.of(false, VM), Arguments.of(true, TEXT));
    }

    @Test
    void aTextTenantRoutesAsAValidTenantNeverAsAMalformedRecord() {
        TenantRouting r = TenantRouting.parse("header:tenant", "team-default", null, TEXT);
        assertThat(r.resolve("team-a").id()).isEqualTo("team-a");
        assertThat(r.resolve((String) null).id()).isEqualTo("team-default");
        assertThat(r.resolve("team a")).isNull();
        assertThat(r.refusal("team a")).contains("record header 'tenant'").contains("only 0-9 a-z A-Z");
        assertThatThrownBy(() -> TenantRouting.parse("header:tenant", "team-a", null, VM))
                .hasMessageContaining("--default-tenant: 'team-a' is not a tenant accountID[:projectID]");
    }
}
