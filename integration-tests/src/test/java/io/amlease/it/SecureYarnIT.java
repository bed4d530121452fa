package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.LeaderInfo;
import io.amlease.lease.zk.LeaderReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 on a secure cluster: Kerberos for HDFS and YARN (a MiniKdc), HDFS as the staging
 * filesystem, the application submitted by a user logged in from a keytab. Delegation tokens are
 * the only way a container reaches HDFS there. Runs in failsafe's "secure" execution.
 */
@EnabledIfSystemProperty(named = "amlease.test.secure", matches = "true",
    disabledReason = "runs in failsafe's secure execution, a JVM of its own (UGI is JVM-wide)")
class SecureYarnIT {
  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-secure-yarn-it", start());

  @TempDir
  Path dir;

  private static SecureHadoop secure;

  private static SecureHadoop start() {
    if (!Boolean.getBoolean("amlease.test.secure")) {
      return null;
    }
    try {
      secure = SecureHadoop.start();
      return secure;
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Item 3: a worker gets the tokens it needs. Its shipped file is staged on HDFS, so it can only
   * be localized with an HDFS delegation token in the worker's launch context (before, workers got
   * none, and the container failed to localize).
   */
  @Test
  void theMasterAndAWorkerLocalizeTheShippedFileFromKerberizedHdfs() throws Exception {
    Path data = dir.resolve("data.txt");
    Files.writeString(data, "shipped through HDFS\n");
    Path masterSaw = dir.resolve("master-saw");
    Path workerSaw = dir.resolve("worker-saw");
    String lease = "/amlease/it-secure";
    ApplicationId id = secure.asUser(() -> cluster.submit("--name", "it-secure",
        "--zk", cluster.zkConnect(), "--lease", lease, "--session-timeout", "6s",
        "--stop-timeout", "1s", "--am-memory", "256",
        "--am-java-opts", "-Djava.security.krb5.conf=" + secure.krb5Conf(),
        "--file", data.toString(), "--workers", "1", "--worker-memory", "128",
        "--worker-command", "cat data.txt > " + workerSaw + ".tmp && mv " + workerSaw + ".tmp "
            + workerSaw + "; exec sleep 600",
        "--", "sh", "-c", "cat data.txt > " + masterSaw + ".tmp && mv " + masterSaw + ".tmp "
            + masterSaw + "; exec sleep 600"));
    try (LeaderReader reader = new LeaderReader(cluster.zk(), lease)) {
      assertThat(cluster.yarn().getApplicationReport(id).getUser()).isEqualTo(SecureHadoop.USER);
      LeaderInfo leader = await().atMost(Duration.ofSeconds(60)).until(
          () -> reader.current().orElse(null), java.util.Objects::nonNull);
      assertThat(leader.epoch()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(masterSaw)
          && Files.exists(workerSaw));
      assertThat(Files.readString(masterSaw)).isEqualTo("shipped through HDFS\n");
      assertThat(Files.readString(workerSaw)).isEqualTo("shipped through HDFS\n");
    } finally {
      cluster.yarn().killApplication(id);
    }
  }
}
