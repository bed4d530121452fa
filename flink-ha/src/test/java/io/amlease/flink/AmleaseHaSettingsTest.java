package io.amlease.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.junit.jupiter.api.Test;

/** Each rule of the Flink keys, pinned by the message a user sees. */
class AmleaseHaSettingsTest {
  private static Configuration conf() {
    Configuration c = new Configuration();
    c.setString("high-availability.amlease.quorum", "zk1:2181,zk2:2181");
    return c;
  }

  @Test
  void defaultsFollowFlinksClusterId() {
    Configuration c = conf();
    c.set(HighAvailabilityOptions.HA_CLUSTER_ID, "application_1_0001");

    AmleaseHaSettings s = AmleaseHaSettings.from(c);

    assertThat(s.base()).isEqualTo("/amlease/flink/application_1_0001");
    assertThat(s.lease().leasePath()).isEqualTo(s.base());
    assertThat(s.lease().connectString()).isEqualTo("zk1:2181,zk2:2181");
    assertThat(s.lease().sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.lease().holderId()).startsWith("flink-jm@");
    // Flink stops a revoked JobMaster asynchronously: the stop-timeout comes out of T's budget.
    assertThat(s.lease().stopTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.lease().requestedTiming().grace()).isEqualTo(Duration.ofMillis(17_500));
  }

  @Test
  void aStopTimeoutThatLeavesNoGraceIsRefusedNamingFlinksKey() {
    Configuration c = conf();
    c.setString("high-availability.amlease.session-timeout", "10 s");
    c.setString("high-availability.amlease.stop-timeout", "9 s");

    assertThatThrownBy(() -> AmleaseHaSettings.from(c))
        .isInstanceOf(IllegalConfigurationException.class)
        .hasMessageContaining("high-availability.amlease.stop-timeout")
        .hasMessageNotContaining("amlease.lease.stop-timeout");
  }

  @Test
  void theQuorumFallsBackToFlinksZooKeeperKey() {
    Configuration c = new Configuration();
    c.setString("high-availability.zookeeper.quorum", "zk:2181");

    assertThat(AmleaseHaSettings.from(c).lease().connectString()).isEqualTo("zk:2181");
  }

  @Test
  void noQuorumIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> AmleaseHaSettings.from(new Configuration()))
        .isInstanceOf(IllegalConfigurationException.class)
        .hasMessageContaining("high-availability.amlease.quorum");
  }

  @Test
  void aGraceThatWouldAllowTwoLeadersIsRefusedNamingFlinksKeys() {
    Configuration c = conf();
    c.setString("high-availability.amlease.session-timeout", "10 s");
    c.setString("high-availability.amlease.grace", "9 s");

    assertThatThrownBy(() -> AmleaseHaSettings.from(c))
        .isInstanceOf(IllegalConfigurationException.class)
        .hasMessageContaining("high-availability.amlease.grace")
        .hasMessageNotContaining("amlease.lease.grace");
  }

  @Test
  void aRelativePathIsRefusedNamingTheKey() {
    Configuration c = conf();
    c.setString("high-availability.amlease.path", "flink/prod");

    assertThatThrownBy(() -> AmleaseHaSettings.from(c))
        .isInstanceOf(IllegalConfigurationException.class)
        .hasMessageContaining("high-availability.amlease.path");
  }
}
