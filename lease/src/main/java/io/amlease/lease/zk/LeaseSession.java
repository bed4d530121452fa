package io.amlease.lease.zk;

import io.amlease.lease.Durations;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening and closing a lease's ZooKeeper session: one Curator client with the lease's ACL and
 * credentials, its negotiated timeout checked against G2 before anything else happens on it, and a
 * close that never waits long on a silent link.
 */
final class LeaseSession {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private LeaseSession() {}

  static CuratorFramework connect(LeaseConfig config, LeaseAcl acl)
      throws LeaseException.Unavailable, LeaseException.AccessDenied {
    return ZkClients.connect(config.connectString(), config.sessionTimeout(),
        config.connectionTimeout(), acl,
        acl.credentials().map(c -> List.of(LeaseAcl.authInfo(c))).orElse(List.of()),
        acl.clientConfig());
  }

  /**
   * The timing for the session {@code c} negotiated.
   *
   * @throws io.amlease.lease.LeaseConfigException when the negotiated timeout breaks G2
   */
  static LeaseTiming negotiated(LeaseConfig config, CuratorFramework c) throws Exception {
    ZooKeeper zk = c.getZookeeperClient().getZooKeeper();
    Duration negotiated = Duration.ofMillis(zk.getSessionTimeout());
    LeaseTiming timing = config.timingFor(negotiated, "negotiated by the server");
    LOG.info("connected to {} (session 0x{}); session timeout {} requested, {} negotiated; grace {}, "
            + "renew every {}", config.connectString(), Long.toHexString(zk.getSessionId()),
        Durations.format(config.sessionTimeout()), Durations.format(negotiated),
        Durations.format(timing.grace()), Durations.format(timing.renewInterval()));
    return timing;
  }

  /**
   * Closes the session, waiting at most {@link #CLOSE_WAIT}: a holder that has already stopped
   * acting must not wait for a silent link (see {@link ZkClients#closeWithin}).
   */
  static void close(CuratorFramework c) {
    if (!ZkClients.closeWithin(c::close, CLOSE_WAIT, "amlease-close")) {
      LOG.info("ZooKeeper session close still pending after {}; not waiting for it",
          Durations.format(CLOSE_WAIT));
    }
  }
}
