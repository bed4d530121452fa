package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lease owned by a SASL principal (issue 14): its nodes get {@code sasl:} ACLs, only that
 * principal can take or disturb the lease, everyone can read it, and a lease whose nodes others may
 * write is refused. Runs in a JVM of its own with a JAAS configuration (sasl-jaas.conf) and
 * ZooKeeper's SASL auth provider, both JVM-wide.
 */
class SaslDigestTest {
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();

  /** Only in surefire's "sasl" execution (lease/pom.xml), which sets the JVM-wide properties. */
  @BeforeAll
  static void inItsOwnJvm() {
    assumeTrue(Boolean.getBoolean("amlease.test.sasl-digest"),
        "runs in the sasl surefire execution, which configures JAAS and ZooKeeper's SASL provider");
  }

  private static LeaseConfig config(String path, String id, String principal, String context) {
    return LeaseConfig.builder().connectString(zk.connectString()).leasePath(path).holderId(id)
        .sessionTimeout(Duration.ofSeconds(6)).saslPrincipal(principal).saslLoginContext(context)
        .build();
  }

  @Test
  void onlyTheSaslPrincipalCanTakeOrDisturbTheLease() throws Exception {
    String path = "/sasl/lease";
    try (Holder a = new Holder(config(path, "a", "amlease", "Amlease")).start()) {
      a.awaitGrant(Duration.ofSeconds(10));
      List<ACL> expected = List.of(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "amlease")),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      for (String node : List.of(path, path + "/epoch", path + "/latch", path + "/leader")) {
        assertThat(zk.admin().getACL().forPath(node)).as(node)
            .containsExactlyInAnyOrderElementsOf(expected);
      }

      // A client without SASL: it reads, but cannot change anything.
      assertThat(new LeaderReader(zk.admin(), path).current()).get()
          .satisfies(i -> assertThat(i.holder()).isEqualTo("a"));
      assertThatThrownBy(() -> zk.admin().setData().forPath(path + "/epoch", "99".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.admin().delete().forPath(path + "/leader"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.admin().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .forPath(path + "/latch/x")).isInstanceOf(KeeperException.NoAuthException.class);

      // Authenticated as another principal: refused before it campaigns, naming who it is.
      try (Holder mallory = new Holder(config(path, "m", "mallory", "Mallory"))) {
        assertThatThrownBy(mallory::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("SASL principal 'mallory'");
      }
      // Claiming the owner's name with a wrong password: the server refuses the login.
      try (Holder impostor = new Holder(config(path, "i", "amlease", "Impostor"))) {
        assertThatThrownBy(impostor::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("refused to authenticate");
      }
      // A holder that names no SASL principal: it must not take the lease as if it were open.
      try (Holder plain = new Holder(LeaseConfig.builder().connectString(zk.connectString())
          .leasePath(path).holderId("p").sessionTimeout(Duration.ofSeconds(6)).build())) {
        assertThatThrownBy(plain::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("without credentials").hasMessageContaining("sasl-principal");
      }
      // A login context the JAAS configuration does not have.
      try (Holder typo = new Holder(config(path, "t", "amlease", "Amleese"))) {
        assertThatThrownBy(typo::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("no JAAS login context 'Amleese'");
      }
      assertThat(a.lease.participants()).isEqualTo(List.of("a"));
      assertThat(a.lease.state().epoch()).isPresent();
      assertThat(a.revocations).isEmpty();
    }
  }

  /** An open lease (made before SASL was configured) is refused, not silently taken over. */
  @Test
  void aLeaseOthersMayWriteIsRefused() throws Exception {
    String path = "/sasl/open";
    try (Holder open = new Holder(LeaseConfig.builder().connectString(zk.connectString())
        .leasePath(path).holderId("o").sessionTimeout(Duration.ofSeconds(6)).build()).start()) {
      open.awaitGrant(Duration.ofSeconds(10));
    }
    try (Holder a = new Holder(config(path, "a", "amlease", "Amlease"))) {
      assertThatThrownBy(a::start).isInstanceOf(LeaseException.AccessDenied.class)
          .hasMessageContaining("world:anyone:cdrwa").hasMessageContaining("setAcl -R " + path
              + " sasl:amlease:cdrwa,world:anyone:r");
    }
  }
}
