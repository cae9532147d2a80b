package io.tsdbwriter.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code --tenant-from}, {@code --default-tenant}, {@code --remote-write-tenant-header} (the syntaxes: {@link TenantSyntaxTest}). */
class TenantRoutingTest {

    @Test
    void theFlagsParseIntoHeaderOrLabelRouting() {
        TenantRouting h = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
        assertThat(h.from()).isEqualTo(TenantRouting.From.HEADER);
        assertThat(h.name()).isEqualTo("tenant");
        assertThat(h.header()).isEqualTo("X-Scope-OrgID");
        assertThat(h.defaultTenant()).isNull();
        TenantRouting l = TenantRouting.parse("label:vm_account_id", "3:1", "THANOS-TENANT", TenantSyntax.ACCOUNT_ID);
        assertThat(l.byLabel()).isTrue();
        assertThat(l.defaultTenant().id()).isEqualTo("3:1");
        assertThat(l.header()).isEqualTo("THANOS-TENANT");
        assertThat(TenantRouting.parse(null, null, null, TenantSyntax.ACCOUNT_ID)
                        .routes())
                .isFalse();
    }

    @Test
    void badFlagsAreOneLineNamingTheFlag() {
        assertThatThrownBy(() -> TenantRouting.parse("tenant", null, null, TenantSyntax.ACCOUNT_ID))
                .hasMessage("--tenant-from must be header:NAME or label:NAME, got 'tenant'");
        assertThatThrownBy(() -> TenantRouting.parse("label:", null, null, TenantSyntax.ACCOUNT_ID))
                .hasMessageStartingWith("--tenant-from must be");
        assertThatThrownBy(() -> TenantRouting.parse("label:1x", null, null, TenantSyntax.ACCOUNT_ID))
                .hasMessageStartingWith("--tenant-from label:NAME needs a label name");
        assertThatThrownBy(() -> TenantRouting.parse("header:t", "x", null, TenantSyntax.ACCOUNT_ID))
                .hasMessage(
                        "--default-tenant: 'x' is not a tenant accountID[:projectID] (accountID must be decimal digits)");
        assertThatThrownBy(() -> TenantRouting.parse(null, "1", null, TenantSyntax.ACCOUNT_ID))
                .hasMessage("--default-tenant needs --tenant-from header:NAME or label:NAME");
        assertThatThrownBy(() -> TenantRouting.parse("header:t", null, "a b", TenantSyntax.ACCOUNT_ID))
                .hasMessageStartingWith("--remote-write-tenant-header must be an HTTP header name");
    }

    @Test
    void aValueWithoutTenantGetsTheDefaultElseIsRefusedWithTheReason() {
        TenantRouting noDefault = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
        assertThat(noDefault.resolve((String) null)).isNull();
        assertThat(noDefault.missing(null)).isTrue();
        assertThat(noDefault.refusal(null)).isEqualTo("no record header 'tenant' and no --default-tenant");
        assertThat(noDefault.resolve("x")).isNull();
        assertThat(noDefault.missing("x")).isFalse();
        assertThat(noDefault.refusal("x")).startsWith("record header 'tenant': 'x' is not a tenant");
        TenantRouting withDefault = TenantRouting.parse("label:tenant", "9", null, TenantSyntax.ACCOUNT_ID);
        assertThat(withDefault.resolve((String) null).id()).isEqualTo("9");
        assertThat(withDefault.resolve("x"))
                .as("an invalid value is refused, not defaulted")
                .isNull();
        assertThat(withDefault.refusal("x")).startsWith("label 'tenant': 'x' is not a tenant");
    }

    @Test
    void eachTenantIsRegisteredOnceWithADenseIndex() {
        TenantRouting r = TenantRouting.parse("header:t", "5", null, TenantSyntax.ACCOUNT_ID);
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
