package io.amlease.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.flink.leader.AmleaseLeaderElectionDriver;
import io.amlease.flink.leader.LeaderTerms;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.zk.ZkClients;
import io.amlease.lease.zk.ZkServers;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderelection.LeaderInformationRegister;
import org.junit.jupiter.api.Test;

/**
 * The jar users put into Flink's {@code lib/}, run as a JobManager host would: in a JVM whose
 * class path is that jar and Flink's own jars only, no Curator, ZooKeeper or Jackson of our
 * version beside it. {@link HaCheck} reads the lease and a component's address written by a
 * leader in this JVM.
 */
class ShadedJarIT {
  private static final Path JAR = Path.of(System.getProperty("amlease.flink.jar"));
  private static final Path FLINK_CP = Path.of(System.getProperty("amlease.flink.classpath"));

  @Test
  void carriesNoClassOutsideItsOwnPackages() throws Exception {
    List<String> foreign = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class"))
          .filter(n -> !n.startsWith("io/amlease/")).forEach(foreign::add);
    }
    assertThat(foreign).isEmpty();
  }

  @Test
  void checksALeaseWithOnlyFlinksClassPathBesideIt() throws Exception {
    try (TestingServer server = ZkServers.standalone()) {
      LeaseConfig config = LeaseConfig.builder().connectString(server.getConnectString())
          .leasePath("/amlease/flink/shaded").holderId("jm-1")
          .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(5))
          .build();
      CompletableFuture<UUID> granted = new CompletableFuture<>();
      try (CuratorFramework client = ZkClients.connectOwner(config);
           AmleaseLeaderElectionDriver driver = new AmleaseLeaderElectionDriver(config, client,
               new LeaderTerms(), new GrantOnly(granted))) {
        UUID session = granted.get(20, TimeUnit.SECONDS);
        driver.publishLeaderInformation("rest_server",
            LeaderInformation.known(session, "http://jm-1:8081"));

        Process p = new ProcessBuilder(javaBin(), "-cp", classPath(), HaCheck.class.getName(),
            "-Dhigh-availability.amlease.quorum=" + server.getConnectString(),
            "-Dhigh-availability.amlease.path=/amlease/flink/shaded")
            .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("leader: epoch=1 holder=jm-1")
            .contains("rest_server: http://jm-1:8081 session " + session);
      }
    }
  }

  /**
   * The README's installation, verbatim: its jar name, its {@code config.yaml} (with the quorum
   * pointed at the test's server, the one change), and its check command run by a shell, in a
   * {@code $FLINK_HOME} whose {@code lib/} holds the jar and Flink's own jars.
   */
  @Test
  void theReadmesInstallationRuns(@org.junit.jupiter.api.io.TempDir Path flinkHome)
      throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    assertThat(readme).contains("cp flink-ha/target/" + JAR.getFileName() + " \"$FLINK_HOME/lib/\"");
    String yaml = block(readme, "In `$FLINK_HOME/conf/config.yaml`:\n\n```yaml\n");
    String command = block(readme, "with Flink's class path and nothing else:\n\n```sh\n");
    assertThat(command).isEqualTo(
        "java -cp \"$FLINK_HOME/lib/*\" io.amlease.flink.HaCheck \"$FLINK_HOME/conf\"");
    Path lib = Files.createDirectories(flinkHome.resolve("lib"));
    for (String jar : classPath().split(File.pathSeparator)) {
      Files.createSymbolicLink(lib.resolve(Path.of(jar).getFileName()), Path.of(jar));
    }
    try (TestingServer server = ZkServers.standalone()) {
      Path conf = Files.createDirectories(flinkHome.resolve("conf"));
      Files.writeString(conf.resolve("config.yaml"), yaml.replace(
          "zk1:2181,zk2:2181,zk3:2181", server.getConnectString()));

      ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
      pb.environment().put("FLINK_HOME", flinkHome.toString());
      Process p = pb.start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out).contains("lease /amlease/flink/prod-1 on " + server.getConnectString()
          + ": session timeout 30s").contains("leader: none");
    }
  }

  /** The text from just after {@code opening} to the closing fence. */
  private static String block(String text, String opening) {
    int from = text.indexOf(opening);
    assertThat(from).as(opening).isNotNegative();
    from += opening.length();
    return text.substring(from, text.indexOf("\n```", from));
  }

  /** The shaded jar, Flink's jars, and SLF4J's API (which Flink's lib/ carries in flink-dist). */
  private static String classPath() throws Exception {
    String slf4j = Path.of(org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    String flink = Files.readString(FLINK_CP).trim();
    assertThat(flink).doesNotContain("curator").doesNotContain("/zookeeper/");
    return String.join(File.pathSeparator, JAR.toString(), flink, slf4j);
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private record GrantOnly(CompletableFuture<UUID> granted) implements LeaderElectionDriver.Listener {
    @Override
    public void onGrantLeadership(UUID session) {
      granted.complete(session);
    }

    @Override
    public void onRevokeLeadership() {}

    @Override
    public void onLeaderInformationChange(String id, LeaderInformation info) {}

    @Override
    public void onLeaderInformationChange(LeaderInformationRegister register) {}

    @Override
    public void onError(Throwable t) {
      granted.completeExceptionally(t);
    }
  }
}
