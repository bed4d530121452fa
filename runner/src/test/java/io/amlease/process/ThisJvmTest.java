package io.amlease.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.LeaseConfig;
import org.junit.jupiter.api.Test;

/** What $AMLEASE_PUBLISH carries of the lease's owner (PublishCommandTest runs it for digest). */
class ThisJvmTest {
  @Test
  void publishLogsInAsTheSaslOwnerOfTheLease() {
    LeaseConfig sasl = LeaseConfig.builder().connectString("127.0.0.1:2181").leasePath("/l")
        .saslPrincipal("amlease@EXAMPLE.COM").saslLoginContext("AmClient").build();
    assertThat(ThisJvm.publishCommand(sasl, java.util.Optional.of(java.nio.file.Path.of("/c/j"))))
        .contains(" -Djava.security.auth.login.config=/c/j ")
        .endsWith(" io.amlease.cli.Main publish"
            + " --sasl-principal amlease@EXAMPLE.COM --sasl-login-context AmClient");
    LeaseConfig open = LeaseConfig.builder().connectString("127.0.0.1:2181").leasePath("/l")
        .build();
    assertThat(ThisJvm.publishCommand(open, java.util.Optional.empty()))
        .endsWith(" io.amlease.cli.Main publish");
  }
}
