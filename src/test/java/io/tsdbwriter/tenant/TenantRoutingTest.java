package io.tsdbwriter.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --tenant-from}, {@code --default-tenant}, {@code --remote-write-tenant-header} and VictoriaMetrics' tenant syntax. */
class TenantRoutingTest {

    @Test
    void aTenantIsAnAccountAndAnOptionalProjectOfUnsigned32BitDecimals() {
        Tenant t = Tenant.parse("42:7", 0);
        assertThat(t.accountId()).isEqualTo(42);
        assertThat(t.projectId()).isEqualTo(7);
        assertThat(t.id()).isEqualTo("42:7");
        assertThat(Tenant.parse("4294967295", 0).accountId()).isEqualTo(4294967295L);
        assertThat(Tenant.parse("0", 0).projectId()).isZero();
        assertThat(Tenant.parse("007", 0).id()).as("the text as given").isEqualTo("007");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            textBlock =
                    """
            4294967296 | accountID must be at most 4294967295
            1:4294967296 | projectID must be at most 4294967295
            -1 | accountID must be decimal digits
            team-a | 'team-a' is not a tenant accountID[:projectID]
            1: | projectID must be 1 to 10 decimal digits
            :1 | accountID
            1:2:3 | projectID must be decimal digits
            """)
    void anythingElseIsNamedInvalidWithItsReason(String text, String reason) {
        assertThat(Tenant.invalid(text)).contains(reason);
    }

    @Test
    void anEmptyTenantAndAControlCharacterAreNamedSoAndATenantIsValid() {
        assertThat(Tenant.invalid("")).isEqualTo("empty tenant");
        assertThat(Tenant.invalid("1\n"))
                .as("a control character is not logged as is")
                .contains("'1?'");
        assertThat(Tenant.invalid("1")).isNull();
    }

    @Test
    void theFlagsParseIntoHeaderOrLabelRouting() {
        TenantRouting h = TenantRouting.parse("header:tenant", null, null);
        assertThat(h.from()).isEqualTo(TenantRouting.From.HEADER);
        assertThat(h.name()).isEqualTo("tenant");
        assertThat(h.header()).isEqualTo("X-Scope-OrgID");
        assertThat(h.defaultTenant()).isNull();
        TenantRouting l = TenantRouting.parse("label:vm_account_id", "3:1", "THANOS-TENANT");
        assertThat(l.byLabel()).isTrue();
        assertThat(l.defaultTenant().id()).isEqualTo("3:1");
        assertThat(l.header()).isEqualTo("THANOS-TENANT");
        assertThat(TenantRouting.parse(null, null, null).routes()).isFalse();
    }

    @Test
    void badFlagsAreOneLineNamingTheFlag() {
        assertThatThrownBy(() -> TenantRouting.parse("tenant", null, null))
                .hasMessage("--tenant-from must be header:NAME or label:NAME, got 'tenant'");
        assertThatThrownBy(() -> TenantRouting.parse("label:", null, null))
                .hasMessageStartingWith("--tenant-from must be");
        assertThatThrownBy(() -> TenantRouting.parse("label:1x", null, null))
                .hasMessageStartingWith("--tenant-from label:NAME needs a label name");
        assertThatThrownBy(() -> TenantRouting.parse("header:t", "x", null))
                .hasMessage(
                        "--default-tenant: 'x' is not a tenant accountID[:projectID] (accountID must be decimal digits)");
        assertThatThrownBy(() -> TenantRouting.parse(null, "1", null))
                .hasMessage("--default-tenant needs --tenant-from header:NAME or label:NAME");
        assertThatThrownBy(() -> TenantRouting.parse("header:t", null, "a b"))
                .hasMessageStartingWith("--remote-write-tenant-header must be an HTTP header name");
    }

    @Test
    void aValueWithoutTenantGetsTheDefaultElseIsRefusedWithTheReason() {
        TenantRouting noDefault = TenantRouting.parse("header:tenant", null, null);
        assertThat(noDefault.resolve((String) null)).isNull();
        assertThat(noDefault.missing(null)).isTrue();
        assertThat(noDefault.refusal(null)).isEqualTo("no record header 'tenant' and no --default-tenant");
        assertThat(noDefault.resolve("x")).isNull();
        assertThat(noDefault.missing("x")).isFalse();
        assertThat(noDefault.refusal("x")).startsWith("record header 'tenant': 'x' is not a tenant");
        TenantRouting withDefault = TenantRouting.parse("label:tenant", "9", null);
        assertThat(withDefault.resolve((String) null).id()).isEqualTo("9");
        assertThat(withDefault.resolve("x"))
                .as("an invalid value is refused, not defaulted")
                .isNull();
        assertThat(withDefault.refusal("x")).startsWith("label 'tenant': 'x' is not a tenant");
    }

    @Test
    void eachTenantIsRegisteredOnceWithADenseIndex() {
        TenantRouting r = TenantRouting.parse("header:t", "5", null);
        Tenant a = r.resolve("1");
        Tenant b = r.resolve("2:3");
        assertThat(r.resolve("1")).isSameAs(a);
        assertThat(r.defaultTenant().index()).isZero();
        assertThat(a.index()).isEqualTo(1);
        assertThat(b.index()).isEqualTo(2);
        assertThat(r.tenants().get(2)).isSameAs(b);
        assertThat(r.resolve("1".getBytes(StandardCharsets.UTF_8))).isSameAs(a);
    }
}
