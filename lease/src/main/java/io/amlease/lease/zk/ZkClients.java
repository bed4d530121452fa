package io.amlease.lease.zk;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/** Builds and connects Curator clients the way every amlease component needs them. */
public final class ZkClients {
  private ZkClients() {}

  /**
   * A started client, connected within {@code connectionTimeout}.
   *
   * <p>{@link SessionConnectionStateErrorPolicy}: SUSPENDED is not an error, so the latch does not drop
   * on a blip; the lease's watchdog owns that decision. The ensemble tracker is off: it would replace
   * the configured connect string (a proxy, a load balancer, a fault proxy in tests) with the servers'
   * own addresses. The ZooKeeper handles reconnect without the client's 1 s pause between passes over
   * the server list ({@link PromptHostProvider}), so that a short outage costs no more grace than it
   * lasts plus ZooKeeper's random 0–1 s.
   *
   * @throws LeaseException.Unavailable when no server answered in time
   */
  public static CuratorFramework connect(String connectString, Duration sessionTimeout,
      Duration connectionTimeout, ACLProvider acl, List<org.apache.curator.framework.AuthInfo> auth)
      throws LeaseException.Unavailable {
    return connect(connectString, sessionTimeout, connectionTimeout, acl, auth,
        java.util.Optional.empty());
  }

  /** As above, with ZooKeeper client settings (e.g. SASL's) instead of ZooKeeper's defaults. */
  static CuratorFramework connect(String connectString, Duration sessionTimeout,
      Duration connectionTimeout, ACLProvider acl, List<org.apache.curator.framework.AuthInfo> auth,
      java.util.Optional<org.apache.zookeeper.client.ZKClientConfig> clientConfig)
      throws LeaseException.Unavailable {
    CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
        .connectString(connectString)
        .sessionTimeoutMs(Math.toIntExact(sessionTimeout.toMillis()))
        .connectionTimeoutMs(Math.toIntExact(connectionTimeout.toMillis()))
        .retryPolicy(new ExponentialBackoffRetry(100, 5, 2000))
        .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())
        .ensembleTracker(false)
        .zookeeperFactory(PromptHostProvider.factory());
    if (acl != null) {
      b.aclProvider(acl);
    }
    if (!auth.isEmpty()) {
      b.authorization(auth);
    }
    clientConfig.ifPresent(b::zkClientConfig);
    CuratorFramework client = b.build();
    client.start();
    boolean connected;
    try {
      connected = client.blockUntilConnected(
          Math.toIntExact(connectionTimeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      connected = false;
    }
    if (!connected) {
      client.close();
      throw new LeaseException.Unavailable("ZooKeeper at " + connectString
          + " is not reachable within " + io.amlease.lease.Durations.format(connectionTimeout)
          + " (" + LeaseConfig.CONNECTION_TIMEOUT + ")", null);
    }
    return client;
  }

  /** A plain client for readers ({@code amlease leader}): no ACLs needed to read lease nodes. */
  public static CuratorFramework connectReader(String connectString, Duration connectionTimeout)
      throws LeaseException.Unavailable {
    return connect(connectString, LeaseConfig.DEFAULT_SESSION_TIMEOUT, connectionTimeout, null,
        List.of());
  }


  /**
   * Runs {@code close} (a session close, and whatever must precede it) on a daemon thread and waits
   * at most {@code wait} for it. Over a link that is still open but silent, ZooKeeper's close waits
   * for the close-session answer until the client gives up on the connection (up to 2T/3); whoever
   * has already stopped acting must not wait that long. Connected, a close takes milliseconds and
   * removes the session's ephemeral nodes at once. Returns whether the close finished in time.
   */
  public static boolean closeWithin(Runnable close, Duration wait, String threadName) {
    Thread closer = new Thread(close, threadName);
    closer.setDaemon(true);
    closer.start();
    try {
      closer.join(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !closer.isAlive();
  }

  /**
   * Brings {@code zk}'s server up to date with the quorum leader for {@code path}, so that a read
   * after it sees every write committed before it (ZooKeeper's reads are otherwise served from
   * whichever server the client is on, which may lag). A missing {@code path} is fine.
   *
   * @throws LeaseException.Unavailable when no answer came within {@code within}
   */
  public static void sync(ZooKeeper zk, String path, Duration within)
      throws KeeperException, InterruptedException, LeaseException.Unavailable {
    java.util.concurrent.CompletableFuture<Integer> synced =
        new java.util.concurrent.CompletableFuture<>();
    zk.sync(path, (rc, p, ctx) -> synced.complete(rc), null);
    Code code;
    try {
      code = Code.get(synced.get(within.toMillis(), TimeUnit.MILLISECONDS));
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new LeaseException.Unavailable("ZooKeeper did not answer a sync of " + path + " within "
          + io.amlease.lease.Durations.format(within), e);
    }
    if (code != Code.OK && code != Code.NONODE) {
      throw KeeperException.create(code, path);
    }
  }


  /**
   * A client that acts as the owner of {@code config}'s lease without holding it: for tools that
   * write under a lease beside its holder ({@code publish}, {@code flex}). It authenticates as the
   * holder does (digest credentials, or SASL from the JAAS login context), creates nodes under the
   * lease with the lease's ACL, and is refused at once, not at its first write, when the server
   * has not authenticated it as the SASL owner.
   *
   * @throws LeaseException.AccessDenied no JAAS login context, or a SASL login that failed
   * @throws LeaseException.Unavailable ZooKeeper unreachable within the connection timeout
   */
  public static CuratorFramework connectOwner(LeaseConfig config) throws LeaseException {
    LeaseAcl acl = new LeaseAcl(new LeasePaths(config.leasePath()), config);
    CuratorFramework client = connect(config.connectString(), LeaseConfig.DEFAULT_SESSION_TIMEOUT,
        config.connectionTimeout(), acl,
        config.aclCredentials().map(c -> List.of(LeaseAcl.authInfo(c))).orElse(List.of()),
        acl.clientConfig());
    try {
      acl.checkAuthenticated(client.getZookeeperClient().getZooKeeper());
      return client;
    } catch (InterruptedException e) {
      client.close();
      Thread.currentThread().interrupt();
      throw new LeaseException.Unavailable("interrupted while asking ZooKeeper who this client "
          + "is", e);
    } catch (LeaseException | RuntimeException e) {
      client.close();
      throw e;
    } catch (Exception e) { // Curator's getZooKeeper() declares Exception.
      client.close();
      throw new LeaseException.Unavailable("cannot ask ZooKeeper who this client is: " + e, e);
    }
  }
}
