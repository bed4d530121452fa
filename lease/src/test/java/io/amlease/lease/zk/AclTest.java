package io.amlease.lease.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** With digest credentials, only the lease's principal can change the lease nodes; anyone can read. */
class AclTest {
  @RegisterExtension static final StandaloneZk zk = new StandaloneZk();



  private static LeaseConfig config(String path, String id, Path credentials) {
    LeaseConfig.Builder b = LeaseConfig.builder().connectString(zk.connectString())
        .leasePath(path).holderId(id).sessionTimeout(Duration.ofSeconds(6));
    if (credentials != null) {
      b.aclCredentials(credentials);
    }
    return b.build();
  }

  @Test
  void onlyThePrincipalCanChangeTheLeaseNodes(@TempDir Path dir) throws Exception {
    Path alice = Files.writeString(dir.resolve("alice"), "alice:s3cret\n");
    String path = "/acl/lease";
    try (Holder a = new Holder(config(path, "a", alice)).start()) {
      a.awaitGrant(Duration.ofSeconds(10));

      assertThatThrownBy(() -> zk.admin().setData().forPath(path + "/epoch", "99".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.admin().setData().forPath(path + "/leader", "{}".getBytes()))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.admin().delete().forPath(path + "/leader"))
          .isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> zk.admin().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
          .forPath(path + "/latch/x")).isInstanceOf(KeeperException.NoAuthException.class);
      assertThat(zk.admin().getACL().forPath(path + "/epoch"))
          .anySatisfy(acl -> assertThat(acl.getId().getScheme()).isEqualTo("digest"))
          .allSatisfy(acl -> assertThat(acl.getId().getScheme().equals("world")
              ? acl.getPerms() == ZooDefs.Perms.READ : true).isTrue());
      // Reading needs no credentials.
      assertThat(new LeaderReader(zk.admin(), path).current()).get()
          .satisfies(i -> assertThat(i.holder()).isEqualTo("a"));

      try (Holder nobody = new Holder(config(path, "b", null))) {
        assertThatThrownBy(nobody::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("without credentials").hasMessageContaining("--acl-credentials");
      }
      Path mallory = Files.writeString(dir.resolve("mallory"), "alice:guess\n");
      try (Holder wrong = new Holder(config(path, "c", mallory))) {
        assertThatThrownBy(wrong::start).isInstanceOf(LeaseException.AccessDenied.class)
            .hasMessageContaining("digest user 'alice'");
      }
      assertThat(a.lease.participants()).isEqualTo(List.of("a"));
      assertThat(a.revocations).isEmpty();
    }
  }
}
