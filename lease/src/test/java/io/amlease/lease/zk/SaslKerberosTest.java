package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lease on a Kerberos-protected ZooKeeper (issue 14), as on a secure Hadoop cluster: a MiniKdc
 * on loopback, ZooKeeper's server logging in from its keytab as zookeeper/localhost, and clients
 * from theirs. Only the lease's principal may take or disturb the lease; everyone may read it.
 * Runs in a JVM of its own (surefire's "kerberos" execution): JAAS and ZooKeeper's auth providers
 * are JVM-wide.
 */
class SaslKerberosTest {
  private static MiniKdc kdc;
  private static TestingServer server;
  private static CuratorFramework anonymous;
  private static String realm;

  @BeforeAll
  static void start() throws Exception {
    assumeTrue(Boolean.getBoolean("amlease.test.kerberos"),
        "runs in the kerberos surefire execution, which configures ZooKeeper's SASL provider");
    Path dir = Files.createTempDirectory("amlease-kdc");
    kdc = new MiniKdc(MiniKdc.createConf(), dir.toFile());
    kdc.start();
    realm = kdc.getRealm();
    File zk = dir.resolve("zookeeper.keytab").toFile();
    File amlease = dir.resolve("amlease.keytab").toFile();
    File mallory = dir.resolve("mallory.keytab").toFile();
    kdc.createPrincipal(zk, "zookeeper/localhost");
    kdc.createPrincipal(amlease, "amlease");
    kdc.createPrincipal(mallory, "mallory");
    javax.security.auth.login.Configuration.setConfiguration(new Jaas(Map.of(
        "Server", krb5(zk, "zookeeper/localhost@" + realm),
        "Client", krb5(amlease, "amlease@" + realm),
        "Mallory", krb5(mallory, "mallory@" + realm),
        // Claims amlease's name with mallory's key: the KDC refuses the login.
        "Impostor", krb5(mallory, "amlease@" + realm))));
    // The server's principal, not one built from whatever name 127.0.0.1 resolves to here.
    System.setProperty("zookeeper.server.principal", "zookeeper/localhost@" + realm);
    server = ZkServers.standalone();
    // With a Client section in the JAAS configuration every ZooKeeper client logs in by default;
    // this one must stay anonymous.
    org.apache.zookeeper.client.ZKClientConfig noSasl = new org.apache.zookeeper.client.ZKClientConfig();
    noSasl.setProperty(org.apache.zookeeper.client.ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
    anonymous = ZkClients.connect(server.getConnectString(), Duration.ofSeconds(10),
        Duration.ofSeconds(10), null, List.of(), java.util.Optional.of(noSasl));
  }

  @AfterAll
  static void stop() throws Exception {
    if (anonymous != null) {
      anonymous.close();
    }
    if (server != null) {
      server.close();
    }
    if (kdc != null) {
      kdc.stop();
    }
  }

  private static AppConfigurationEntry[] krb5(File keytab, String principal) {
    return new AppConfigurationEntry[] {new AppConfigurationEntry(
        "com.sun.security.auth.module.Krb5LoginModule", LoginModuleControlFlag.REQUIRED,
        Map.of("useKeyTab", "true", "keyTab", keytab.getAbsolutePath(), "principal", principal,
            "storeKey", "true", "useTicketCache", "false", "doNotPrompt", "true",
            "refreshKrb5Config", "true"))};
  }

  /** A JAAS configuration of named sections. */
  private static final class Jaas extends javax.security.auth.login.Configuration {
    private final Map<String, AppConfigurationEntry[]> sections;

    Jaas(Map<String, AppConfigurationEntry[]> sections) {
      this.sections = sections;
    }

    @Override
    public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
      return sections.get(name);
    }
  }

  private static LeaseConfig config(String path, String id, String principal, String context) {
    return LeaseConfig.builder().connectString(server.getConnectString()).leasePath(path)
        .holderId(id).sessionTimeout(Duration.ofSeconds(6)).saslPrincipal(principal)
        .saslLoginContext(context).build();
  }

  @Test
  void onlyTheKerberosPrincipalCanTakeOrDisturbTheLease() throws Exception {
    String path = "/kerberos/lease";
    String owner = "amlease@" + realm;
    // The default login context, Client, as Hadoop and ZooKeeper name it.
    try (Holder a = new Holder(config(path, "a", owner, "Client")).start()) {
      a.awaitGrant(Duration.ofSeconds(20));
      List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", owner)),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      for (String node : List.of(path, path + "/epoch", path + "/latch", path + "/leader")) {
        assertThat(anonymous.getACL().forPath(node)).as(node)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
      assertThat(new LeaderReader(anonymous, path).current()).get()
          .satisfies(i -> assertThat(i.holder()).isEqualTo("a"));
      assertThatThrownBy(() -> anonymous.setData().forPath(path + "/epoch", "99".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> anonymous.delete().forPath(path + "/leader"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> anonymous.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .forPath(path + "/latch/x")).isInstanceOf(KeeperException.NoAuthException.class);

      try (Holder mallory = new Holder(config(path, "m", "mallory@" + realm, "Mallory"))) {
        assertThatThrownBy(mallory::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("SASL principal 'mallory@" + realm + "'");
      }
      try (Holder impostor = new Holder(config(path, "i", owner, "Impostor"))) {
        assertThatThrownBy(impostor::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("has not authenticated this client as SASL principal 'amlease@"
                + realm + "' (JAAS login context 'Impostor') but only as ip:127.0.0.1");
      }
      // No --sasl-principal, but this JVM's JAAS has a Client section, so ZooKeeper logs it in
      // as the owner: it must still be refused, not create nodes with an open ACL.
      try (Holder unnamed = new Holder(LeaseConfig.builder()
          .connectString(server.getConnectString()).leasePath(path).holderId("u")
          .sessionTimeout(Duration.ofSeconds(6)).build())) {
        assertThatThrownBy(unnamed::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("sasl-principal");
      }
      assertThat(a.lease.participants()).isEqualTo(List.of("a"));
      assertThat(a.revocations).isEmpty();
    }
  }
}
