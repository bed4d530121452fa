package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G2 after connecting: the server clamps the session timeout to at most 20 ticks (10 s here), so a
 * grace that was safe for the requested 20 s is not safe for the 10 s granted.
 */
class NegotiatedTimeoutTest {
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();



  @Test
  void graceThatBreaksG2ForTheNegotiatedTimeoutIsRefusedAfterConnecting() throws Exception {
    LeaseConfig config = LeaseConfig.builder().connectString(zk.connectString())
        .leasePath("/negotiated/refused").sessionTimeout(Duration.ofSeconds(20))
        .grace(Duration.ofSeconds(12)).build(); // fine for 20 s: 20 × 0.95 − 1 = 18 s
    try (Holder a = new Holder(config)) {
      assertThatThrownBy(a::start).isInstanceOfSatisfying(LeaseConfigException.class, e -> {
        assertThat(e.key()).isEqualTo(LeaseConfig.GRACE);
        assertThat(e.getMessage()).contains("12s", "negotiated by the server 10s", "8.5s");
      });
    }
    assertThat(zk.admin().checkExists().forPath("/negotiated/refused")).isNull();
  }

  @Test
  void defaultTimingIsDerivedFromTheNegotiatedTimeout() throws Exception {
    LeaseConfig config = LeaseConfig.builder().connectString(zk.connectString())
        .leasePath("/negotiated/defaults").sessionTimeout(Duration.ofSeconds(20)).build();
    try (Holder a = new Holder(config).start()) {
      a.awaitGrant(Duration.ofSeconds(10));
      assertThat(a.lease.state().timing().sessionTimeout()).isEqualTo(Duration.ofSeconds(10));
      assertThat(a.lease.state().timing().grace().toMillis()).isEqualTo(6666);
      assertThat(a.lease.state().timing().renewInterval().toMillis()).isEqualTo(1666);
    }
  }
}
