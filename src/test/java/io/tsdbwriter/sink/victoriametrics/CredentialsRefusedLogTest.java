package io.tsdbwriter.sink.victoriametrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CredentialsRefusedLogTest {

    @Test
    void onlyUnauthorizedAndForbiddenAreCredentialProblems() {
        assertThat(CredentialsRefusedLog.isCredentialsStatus(401)).isTrue();
        assertThat(CredentialsRefusedLog.isCredentialsStatus(403)).isTrue();
        assertThat(CredentialsRefusedLog.isCredentialsStatus(503)).isFalse();
        assertThat(CredentialsRefusedLog.isCredentialsStatus(400)).isFalse();
    }

    @Test
    void theEndpointIsLoggedWithoutUserInfo() {
        assertThat(CredentialsRefusedLog.withoutUserInfo("http://user:secret@vm:8428/api/v1/import")).isEqualTo("http://vm:8428/api/v1/import");
        assertThat(CredentialsRefusedLog.withoutUserInfo("http://vm:8428/api/v1/import")).isEqualTo("http://vm:8428/api/v1/import");
    }

    @Test
    void aStatusOtherThan401Or403LogsNothingAndRepeatsAreHarmless() {
        CredentialsRefusedLog log = new CredentialsRefusedLog();
        VmEndpoint e = new VmEndpoint("http://127.0.0.1:8428");
        log.refused(e, 503);
        log.refused(e, 401);
        log.refused(e, 401);
    }
}
