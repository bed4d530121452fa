package io.amlease.flink;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The Flink configuration keys of amlease HA ({@code high-availability.amlease.*}). The ZooKeeper
 * quorum falls back to Flink's own {@code high-availability.zookeeper.quorum}, so a cluster that
 * moves from ZooKeeper HA changes only {@code high-availability.type}.
 */
public final class AmleaseHaOptions {
  private AmleaseHaOptions() {}

  public static final ConfigOption<String> QUORUM =
      ConfigOptions.key("high-availability.amlease.quorum")
          .stringType()
          .noDefaultValue()
          .withFallbackKeys("high-availability.zookeeper.quorum")
          .withDescription("ZooKeeper connect string of the lease (host:port,…). Falls back to "
              + "high-availability.zookeeper.quorum.");

  public static final ConfigOption<String> PATH =
      ConfigOptions.key("high-availability.amlease.path")
          .stringType()
          .noDefaultValue()
          .withDescription("ZooKeeper path of this cluster's lease and of everything written "
              + "under it. Default: /amlease/flink/<high-availability.cluster-id>.");

  public static final ConfigOption<Duration> SESSION_TIMEOUT =
      ConfigOptions.key("high-availability.amlease.session-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(30))
          .withDescription("Requested ZooKeeper session timeout T. A JobManager that hears "
              + "nothing from ZooKeeper stops leading before its session can expire.");

  public static final ConfigOption<Duration> GRACE =
      ConfigOptions.key("high-availability.amlease.grace")
          .durationType()
          .noDefaultValue()
          .withDescription("How long a leader keeps leadership without an answer from ZooKeeper. "
              + "Default: the largest that keeps two leaders impossible (2T/3 at most).");

  public static final ConfigOption<Duration> RENEW_INTERVAL =
      ConfigOptions.key("high-availability.amlease.renew-interval")
          .durationType()
          .noDefaultValue()
          .withDescription("How often the leader renews through the ZooKeeper quorum leader. "
              + "Default: derived from T (between T/12 and T/6).");

  public static final ConfigOption<Duration> STOP_TIMEOUT =
      ConfigOptions.key("high-availability.amlease.stop-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription("How long a JobManager whose leadership ended keeps its place in the "
              + "election, so that no standby leads while Flink is still stopping its JobMaster "
              + "(Flink revokes asynchronously). Counted in the session timeout's budget.");

  public static final ConfigOption<Duration> CONNECTION_TIMEOUT =
      ConfigOptions.key("high-availability.amlease.connection-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(15))
          .withDescription("How long to wait for ZooKeeper when connecting.");

  public static final ConfigOption<String> ACL_CREDENTIALS =
      ConfigOptions.key("high-availability.amlease.acl-credentials")
          .stringType()
          .noDefaultValue()
          .withDescription("File with digest credentials (user:password) that own the lease's "
              + "nodes; others may only read them.");

  public static final ConfigOption<String> SASL_PRINCIPAL =
      ConfigOptions.key("high-availability.amlease.sasl-principal")
          .stringType()
          .noDefaultValue()
          .withDescription("SASL principal that owns the lease's nodes, as ZooKeeper names it; "
              + "the JobManager logs in from the JAAS login context "
              + "high-availability.amlease.sasl-login-context.");

  public static final ConfigOption<String> SASL_LOGIN_CONTEXT =
      ConfigOptions.key("high-availability.amlease.sasl-login-context")
          .stringType()
          .defaultValue("Client")
          .withDescription("JAAS login context for ZooKeeper SASL.");
}
