package io.amlease.flink;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.IllegalConfigurationException;

/**
 * amlease HA's settings, read from a Flink {@link Configuration} and validated once, here: the
 * lease's own rules (G2's bound between session timeout, grace and renew interval) are checked by
 * {@link LeaseConfig}, and their messages are given back naming the Flink keys.
 *
 * @param base the ZooKeeper path of this cluster: the lease, and Flink's nodes under it
 * @param lease the lease's configuration (one holder id per JobManager process)
 */
public record AmleaseHaSettings(String base, LeaseConfig lease) {

  /** The lease's keys as Flink users write them. */
  private static final Map<String, String> FLINK_KEYS = Map.of(
      LeaseConfig.CONNECT, AmleaseHaOptions.QUORUM.key(),
      LeaseConfig.LEASE_PATH, AmleaseHaOptions.PATH.key(),
      LeaseConfig.SESSION_TIMEOUT, AmleaseHaOptions.SESSION_TIMEOUT.key(),
      LeaseConfig.CONNECTION_TIMEOUT, AmleaseHaOptions.CONNECTION_TIMEOUT.key(),
      LeaseConfig.GRACE, AmleaseHaOptions.GRACE.key(),
      LeaseConfig.RENEW_INTERVAL, AmleaseHaOptions.RENEW_INTERVAL.key(),
      LeaseConfig.STOP_TIMEOUT, AmleaseHaOptions.STOP_TIMEOUT.key(),
      LeaseConfig.ACL_CREDENTIALS, AmleaseHaOptions.ACL_CREDENTIALS.key(),
      LeaseConfig.SASL_PRINCIPAL, AmleaseHaOptions.SASL_PRINCIPAL.key(),
      LeaseConfig.SASL_LOGIN_CONTEXT, AmleaseHaOptions.SASL_LOGIN_CONTEXT.key());

  /**
   * Reads and validates the settings.
   *
   * @throws IllegalConfigurationException naming the Flink key and the bound it broke
   */
  public static AmleaseHaSettings from(Configuration conf) {
    String quorum = conf.get(AmleaseHaOptions.QUORUM);
    if (quorum == null || quorum.isBlank()) {
      throw new IllegalConfigurationException("amlease HA needs a ZooKeeper quorum: set "
          + AmleaseHaOptions.QUORUM.key() + " (or high-availability.zookeeper.quorum)");
    }
    String base = conf.getOptional(AmleaseHaOptions.PATH)
        .orElseGet(() -> "/amlease/flink" + clusterId(conf));
    LeaseConfig.Builder b = LeaseConfig.builder()
        .connectString(quorum.trim())
        .leasePath(base)
        .holderId(holderId())
        .sessionTimeout(conf.get(AmleaseHaOptions.SESSION_TIMEOUT))
        .connectionTimeout(conf.get(AmleaseHaOptions.CONNECTION_TIMEOUT))
        .stopTimeout(conf.get(AmleaseHaOptions.STOP_TIMEOUT))
        .saslLoginContext(conf.get(AmleaseHaOptions.SASL_LOGIN_CONTEXT));
    conf.getOptional(AmleaseHaOptions.GRACE).ifPresent(b::grace);
    conf.getOptional(AmleaseHaOptions.RENEW_INTERVAL).ifPresent(b::renewInterval);
    conf.getOptional(AmleaseHaOptions.ACL_CREDENTIALS).map(Path::of).ifPresent(b::aclCredentials);
    conf.getOptional(AmleaseHaOptions.SASL_PRINCIPAL).ifPresent(b::saslPrincipal);
    try {
      return new AmleaseHaSettings(base, b.build());
    } catch (LeaseConfigException e) {
      throw new IllegalConfigurationException(flinkWording(e), e);
    }
  }

  /** {@code /<cluster-id>}, as Flink's ZooKeeper HA names a cluster's nodes. */
  private static String clusterId(Configuration conf) {
    String id = conf.get(HighAvailabilityOptions.HA_CLUSTER_ID).trim();
    return id.startsWith("/") ? id : "/" + id;
  }

  /** A JobManager process: its host, and something unique to this process. */
  private static String holderId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      host = "localhost";
    }
    return "flink-jm@" + host + ":" + ProcessHandle.current().pid() + ":"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The lease's message with each amlease key replaced by the Flink key that sets it. */
  static String flinkWording(LeaseConfigException e) {
    String message = e.getMessage();
    for (Map.Entry<String, String> k : FLINK_KEYS.entrySet()) {
      message = message.replace(k.getKey(), k.getValue());
    }
    return message;
  }
}
