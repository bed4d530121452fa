package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 item 4: a YARN application whose lease lives on a Kerberos-protected ZooKeeper, as on
 * a secure Hadoop cluster. A MiniKdc on loopback; the ZooKeeper server logs in from its keytab as
 * zookeeper/localhost; the AM gets only {@code --principal} and {@code --keytab} (no JAAS file:
 * it builds its login context from the shipped keytab) and must hold the lease as that principal,
 * with lease nodes that only it may write. Runs in failsafe's "secure" execution, a JVM of its
 * own, because JAAS and ZooKeeper's SASL provider are JVM-wide.
 */
@EnabledIfSystemProperty(named = "amlease.test.secure", matches = "true",
    disabledReason = "runs in failsafe's secure execution, which enables ZooKeeper's SASL provider")
class SecureZkIT {
  // Before the cluster: its ZooKeeper server logs in from the Server section when it starts.
  private static final Kerberos KERBEROS = Kerberos.start();

  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-secure-zk-it");

  @TempDir
  Path dir;

  @AfterAll
  static void stopKdc() {
    if (KERBEROS != null) {
      KERBEROS.kdc.stop();
    }
  }

  @Test
  void theAmLogsInFromItsKeytabAndOnlyItsPrincipalMayWriteTheLease() throws Exception {
    String lease = "/amlease/it-sasl";
    String principal = "amlease@" + KERBEROS.realm;
    Path record = dir.resolve("record");
    Path workerDir = dir.resolve("worker-dir");
    ApplicationId id = cluster.submit("-Damlease.zk.sasl-principal=" + principal,
        "--name", "it-sasl", "--zk", cluster.zkConnect(), "--lease", lease,
        "--session-timeout", "6s", "--stop-timeout", "1s", "--am-memory", "256",
        "--principal", principal, "--keytab", KERBEROS.amKeytab.toString(),
        "--workers", "1", "--worker-memory", "128",
        "--worker-command", "ls -a > " + workerDir + ".tmp && mv " + workerDir + ".tmp " + workerDir
            + "; exec sleep 600",
        // What /etc/krb5.conf and the cluster's ZooKeeper principal would say on a real node.
        "--am-java-opts", "-Djava.security.krb5.conf=" + KERBEROS.kdc.getKrb5conf()
            + " -Dzookeeper.server.principal=zookeeper/localhost@" + KERBEROS.realm,
        "--", "sh", "-c", "echo $AMLEASE_EPOCH > " + record + "; exec sleep 600");
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      LeaderInfo leader = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), java.util.Objects::nonNull);
      assertThat(leader.epoch()).isEqualTo(1);
      assertThat(leader.applicationId()).isEqualTo(id.toString());
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(record)
          && Files.readString(record).trim().equals("1"));

      // Everyone may read the lease (the reader above is anonymous); only the AM's principal
      // may write it.
      List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", principal)),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      for (String node : List.of(lease, lease + "/epoch", lease + "/latch", lease + "/leader")) {
        assertThat(cluster.zk().getACL().forPath(node)).as(node)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
      assertThatThrownBy(() -> cluster.zk().setData().forPath(lease + "/epoch", "9".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> cluster.zk().delete().forPath(lease + "/leader"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThat(reader.current()).contains(leader);
      // The keytab went to the AM's container only.
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(workerDir));
      assertThat(Files.readAllLines(workerDir)).isNotEmpty().doesNotContain("amlease.keytab");
    } finally {
      cluster.yarn().killApplication(id);
    }
  }

  /** The KDC, the principals and the JVM's JAAS configuration (the server's section only). */
  private static final class Kerberos {
    final MiniKdc kdc;
    final String realm;
    final File amKeytab;

    private Kerberos(MiniKdc kdc, File amKeytab) {
      this.kdc = kdc;
      this.realm = kdc.getRealm();
      this.amKeytab = amKeytab;
    }

    /** Null outside the secure execution (JUnit reads static fields before its conditions). */
    static Kerberos start() {
      if (!Boolean.getBoolean("amlease.test.secure")) {
        return null;
      }
      try {
        Path dir = Files.createTempDirectory("amlease-secure-zk-it-kdc");
        MiniKdc kdc = new MiniKdc(MiniKdc.createConf(), dir.toFile());
        kdc.start();
        File zk = dir.resolve("zookeeper.keytab").toFile();
        File am = dir.resolve("amlease.keytab").toFile();
        kdc.createPrincipal(zk, "zookeeper/localhost");
        kdc.createPrincipal(am, "amlease");
        AppConfigurationEntry[] server = {new AppConfigurationEntry(
            "com.sun.security.auth.module.Krb5LoginModule", LoginModuleControlFlag.REQUIRED,
            Map.of("useKeyTab", "true", "keyTab", zk.getAbsolutePath(),
                "principal", "zookeeper/localhost@" + kdc.getRealm(), "storeKey", "true",
                "useTicketCache", "false", "doNotPrompt", "true", "isInitiator", "false"))};
        // No Client section: this JVM's own ZooKeeper clients (the test's) stay anonymous.
        javax.security.auth.login.Configuration.setConfiguration(
            new javax.security.auth.login.Configuration() {
              @Override
              public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return "Server".equals(name) ? server : null;
              }
            });
        return new Kerberos(kdc, am);
      } catch (Exception e) {
        throw new ExceptionInInitializerError(e);
      }
    }
  }
}
