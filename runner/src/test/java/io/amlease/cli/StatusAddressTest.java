package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StatusAddressTest {
  @Test
  void withoutAHostOnlyLoopbackIsServed() throws Exception {
    assertThat(StatusAddress.parse("--status-port", "9090"))
        .isEqualTo(new StatusAddress("127.0.0.1", 9090));
    assertThat(StatusAddress.parse("--status-port", "0.0.0.0:0"))
        .isEqualTo(new StatusAddress("0.0.0.0", 0));
    assertThatThrownBy(() -> StatusAddress.parse("--status-port", "x:http"))
        .hasMessageContaining("--status-port 'x:http'");
    assertThatThrownBy(() -> StatusAddress.parse("--status-port", "70000"))
        .hasMessageContaining("[0, 65535]");
  }
}
