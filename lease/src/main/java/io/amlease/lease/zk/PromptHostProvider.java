package io.amlease.lease.zk;

import java.net.InetSocketAddress;
import java.util.Collection;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * ZooKeeper's {@link StaticHostProvider} without the pause it makes after each full pass over the
 * server list, so that a lease reconnects as soon as a server is back.
 *
 * <p>Why: after a TCP reset or a server restart, the ZooKeeper client asks its host provider for the
 * next server with a spin delay of 1 s, which {@code StaticHostProvider} sleeps whenever it has tried
 * every server since the last connection (with one server: before every attempt); the client then
 * sleeps a random 0–1 s more before connecting. So the first attempt came 1–2 s after the drop, and a
 * server that was back after 70 ms still cost a holder up to 2 s of its grace. Measured at T = 4 s
 * (grace 2.67 s, renew interval 0.67 s), 50 leases, one server restart of about 70 ms: 1 lease in 50
 * was revoked in 3 of 6 runs, although the outage was far inside G1's bound.
 *
 * <p>Without the spin delay, attempts are spaced only by the client's own random 0–1 s, which still
 * spreads reconnecting clients over a second and keeps a client from spinning against a server that
 * is down (at most a few attempts per second per client). Everything else — address resolution,
 * shuffling, server-list updates — is {@code StaticHostProvider}'s.
 */
final class PromptHostProvider implements HostProvider {
  private final StaticHostProvider servers;

  PromptHostProvider(Collection<InetSocketAddress> addresses) {
    this.servers = new StaticHostProvider(addresses);
  }

  @Override
  public int size() {
    return servers.size();
  }

  @Override
  public InetSocketAddress next(long spinDelayMs) {
    return servers.next(0);
  }

  @Override
  public void onConnected() {
    servers.onConnected();
  }

  @Override
  public boolean updateServerList(Collection<InetSocketAddress> addresses,
      InetSocketAddress currentHost) {
    return servers.updateServerList(addresses, currentHost);
  }

  /** A Curator {@link ZookeeperFactory} whose ZooKeeper handles use this provider. */
  static ZookeeperFactory factory() {
    return new ZookeeperFactory() {
      @Override
      public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher,
          boolean canBeReadOnly) throws Exception {
        return new ZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly,
            provider(connectString));
      }

      @Override
      public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher,
          boolean canBeReadOnly, ZKClientConfig config) throws Exception {
        return new ZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly,
            provider(connectString), config);
      }
    };
  }

  private static HostProvider provider(String connectString) {
    // ZooKeeper parses the chroot out of the connect string itself; the provider needs the hosts.
    return new PromptHostProvider(new ConnectStringParser(connectString).getServerAddresses());
  }
}
