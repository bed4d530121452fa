package io.amlease.flink.yarn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.flink.client.deployment.ClusterSpecification;
import org.apache.flink.client.deployment.application.ApplicationConfiguration;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.yarn.YarnClientYarnClusterInformationRetriever;
import org.apache.flink.yarn.YarnClusterDescriptor;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plugin under Flink's own YARN deployment (issue 26): a checkpointing job deployed in
 * application mode by Flink's {@link YarnClusterDescriptor} on a MiniYARNCluster, its JobManager
 * the YARN ApplicationMaster ({@code YarnApplicationClusterEntryPoint}) and its TaskManagers YARN
 * containers ({@code YarnTaskExecutorRunner}), with amlease as Flink's high availability. The
 * containers run on Flink's and Hadoop's jars and the plugin's shaded jar shipped with
 * {@code yarn.ship-files}; a Flink install ships its {@code lib/} instead, where the plugin jar goes.
 */
class FlinkOnYarnIT {
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final Pattern RESTORED =
      Pattern.compile("\"restored\"\\s*:\\s*\\{[^}]*\"id\"\\s*:\\s*(\\d+)");
  private static Path work;
  private static TestingServer zk;
  /** The containers' way to ZooKeeper. */
  private static FaultProxy proxy;
  private static CuratorFramework reader;
  private static MiniYARNCluster yarn;
  private static YarnConfiguration yarnConf;
  private static YarnClient yarnClient;
  private ApplicationId app;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "flink-on-yarn-");
    // ZooKeeper's default tick (2 s) grants the README's 30 s session; bound to loopback.
    zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 2000, -1,
        Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
    proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", zk.getPort()));
    reader = ZkClients.connectReader(zk.getConnectString(), Duration.ofSeconds(5));
    YarnConfiguration conf = new YarnConfiguration();
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 2048);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 4);
    yarn = new MiniYARNCluster("flink-on-yarn", 2, 1, 1);
    yarn.init(conf);
    yarn.start();
    yarnConf = new YarnConfiguration(yarn.getConfig());

    // What the containers run on: Flink's and Hadoop's jars, this module's classes (the job), and
    // a conf dir whose yarn-site.xml tells the JobManager where the RM is and the TaskManagers' class path.
    Path confDir = Files.createDirectories(work.resolve("hadoop-conf"));
    List<String> classpath = new ArrayList<>(containerJars());
    classpath.add(confDir.toString());
    classpath.add(Path.of("target", "test-classes").toAbsolutePath().toString());
    yarnConf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, String.join(",", classpath));
    try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
      yarnConf.writeXml(out);
    }
    yarnClient = YarnClient.createYarnClient();
    yarnClient.init(yarnConf);
    yarnClient.start();
    await("both NodeManagers running").atMost(Duration.ofSeconds(60))
        .until(() -> yarnClient.getNodeReports(NodeState.RUNNING).size() == 2);
  }

  @AfterAll
  static void stop() throws Exception {
    if (yarnClient != null) {
      yarnClient.stop();
    }
    if (yarn != null) {
      yarn.stop();
    }
    if (reader != null) {
      reader.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (zk != null) {
      zk.close();
    }
  }

  @AfterEach
  void killApplication() throws Exception {
    proxy.heal();
    if (app != null) {
      yarnClient.killApplication(app);
    }
  }

  private static List<String> containerJars() throws Exception {
    String cp = Files.readString(Path.of(System.getProperty("amlease.container.classpath"))).strip();
    return Arrays.stream(cp.split(":")).filter(e -> e.endsWith(".jar")).toList();
  }

  /**
   * The README's "Flink on YARN" configuration, verbatim but for the quorum and the storage
   * directory, which point at this test's, and what a Flink install adds from its own directory.
   */
  private static Map<String, String> flinkConf(Path records) throws Exception {
    Map<String, String> c = new LinkedHashMap<>();
    for (String line : readmeYaml().split("\n")) {
      int colon = line.indexOf(": ");
      assertThat(colon).as("a key: value line: %s", line).isPositive();
      c.put(line.substring(0, colon), line.substring(colon + 2));
    }
    assertThat(c).containsEntry("high-availability.amlease.quorum", "zk1:2181,zk2:2181,zk3:2181")
        .containsEntry("high-availability.storageDir", "hdfs:///flink/ha");
    c.put("high-availability.amlease.quorum", proxy.connectString());
    c.put("high-availability.storageDir", records.resolve("ha").toUri().toString());

    c.put("execution.target", "yarn-application");
    c.put("jobmanager.memory.process.size", "1024m");
    c.put("taskmanager.memory.process.size", "1024m");
    c.put("taskmanager.numberOfTaskSlots", "1");
    c.put("execution.checkpointing.dir", records.resolve("checkpoints").toUri().toString());
    // What a Flink install takes from its own directory: the dist jar, lib/ and log4j.properties.
    String flinkYarnJar = containerJars().stream().filter(j -> Path.of(j).getFileName().toString()
        .startsWith("flink-yarn-")).findFirst().orElseThrow();
    c.put("yarn.flink-dist-jar", flinkYarnJar);
    c.put("yarn.ship-files", System.getProperty("amlease.flink.jar"));
    c.put("$internal.yarn.log-config-file",
        Path.of("target", "test-classes", "flink-conf", "log4j.properties").toAbsolutePath().toString());
    c.put("yarn.staging-directory", records.resolve("staging").toUri().toString());
    // The module openings the config.yaml of Flink's distribution sets for Java 17.
    c.put("env.java.default-opts.all", String.join(" ", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.text=ALL-UNNAMED",
        "--add-opens=java.base/java.time=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"));
    return c;
  }

  private static String readmeYaml() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    String section = readme.substring(readme.indexOf("### Flink on YARN"));
    String opening = "```yaml\n";
    int from = section.indexOf(opening) + opening.length();
    return section.substring(from, section.indexOf("\n```", from));
  }

  private ApplicationId deploy(Path records) throws Exception {
    Configuration flink = Configuration.fromMap(flinkConf(records));
    YarnClusterDescriptor descriptor = new YarnClusterDescriptor(flink, yarnConf, yarnClient,
        YarnClientYarnClusterInformationRetriever.create(yarnClient), true);
    ClusterSpecification spec = new ClusterSpecification.ClusterSpecificationBuilder()
        .setMasterMemoryMB(1024).setTaskManagerMemoryMB(1024).setSlotsPerTaskManager(1)
        .createClusterSpecification();
    try (ClusterClient<ApplicationId> client = descriptor.deployApplicationCluster(spec,
        new ApplicationConfiguration(new String[] {records.toString()}, CheckpointingJob.class.getName()))
        .getClusterClient()) {
      app = client.getClusterId();
    }
    return app;
  }

  private static String root(ApplicationId app) {
    return "/amlease/flink/" + app;
  }

  private static long epoch(ApplicationId app) throws Exception {
    byte[] data = reader.getData().forPath(root(app) + "/epoch");
    return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
  }

  /** The ids of the checkpoint pointers in ZooKeeper, of the one job the application runs. */
  private static List<Long> checkpoints(ApplicationId app) throws Exception {
    String jobs = root(app) + "/jobs";
    if (reader.checkExists().forPath(jobs) == null) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>();
    for (String job : reader.getChildren().forPath(jobs)) {
      String dir = jobs + "/" + job + "/checkpoints";
      if (reader.checkExists().forPath(dir) != null) {
        reader.getChildren().forPath(dir).forEach(c -> ids.add(Long.parseLong(c)));
      }
    }
    return ids.stream().sorted().toList();
  }

  private static long latest(List<Long> ids) {
    return ids.isEmpty() ? 0 : ids.get(ids.size() - 1);
  }

  private static List<Long> firstSeen(Path records) throws Exception {
    Path f = records.resolve("first-seen");
    return Files.exists(f) ? Files.readAllLines(f).stream().map(Long::parseLong).toList() : List.of();
  }

  /** The pid of the JobManager that ran the job's main in {@code attempt}, once it has. */
  private static long jobManagerPid(Path records, int attempt) throws Exception {
    String suffix = String.format("_%02d_000001", attempt);
    await("attempt " + attempt + "'s JobManager ran the job's main").atMost(WAIT).until(() -> {
      try (Stream<Path> files = Files.list(records)) {
        return files.anyMatch(p -> p.getFileName().toString().startsWith("jobmanager-")
            && p.getFileName().toString().endsWith(suffix));
      }
    });
    try (Stream<Path> files = Files.list(records)) {
      Path f = files.filter(p -> p.getFileName().toString().startsWith("jobmanager-")
          && p.getFileName().toString().endsWith(suffix)).findFirst().orElseThrow();
      return Long.parseLong(Files.readString(f).strip());
    }
  }

  /** The id of the checkpoint the running job last restored, from the JobManager's REST API. */
  private static long restoredCheckpoint(ApplicationId app) throws Exception {
    String tracking = yarnClient.getApplicationReport(app).getOriginalTrackingUrl();
    HttpClient http = HttpClient.newHttpClient();
    String jobs = http.send(HttpRequest.newBuilder(URI.create(tracking + "/jobs")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher id = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f]{32})\"\\s*,\\s*\"status\"\\s*:\\s*\"RUNNING\"")
        .matcher(jobs);
    if (!id.find()) {
      return -1;
    }
    String stats = http.send(HttpRequest.newBuilder(URI.create(tracking + "/jobs/" + id.group(1)
        + "/checkpoints")).build(), HttpResponse.BodyHandlers.ofString()).body();
    Matcher restored = RESTORED.matcher(stats);
    return restored.find() ? Long.parseLong(restored.group(1)) : -1;
  }

  /**
   * The seed's deployment end to end. The JobManager leads in epoch 1 and checkpoints. A 5 s
   * ZooKeeper outage, shorter than the grace (17.5 s at T = 30 s), costs nothing: same epoch, the
   * task not restarted, checkpoints go on. After a SIGKILL of its JVM, YARN's attempt 2 leads in a
   * newer epoch and runs the job on from the latest checkpoint attempt 1 completed.
   */
  @Test
  void aBlipCostsNothingAndAfterAKillAttemptTwoRestoresTheLatestCheckpoint() throws Exception {
    Path records = Files.createDirectories(work.resolve("blip-kill"));
    ApplicationId id = deploy(records);
    await("checkpoints of attempt 1").atMost(WAIT).until(() -> checkpoints(id).size() >= 2);
    assertThat(epoch(id)).isEqualTo(1);
    long pid = jobManagerPid(records, 1);

    // Connections reset and refused: the JobManager's ZooKeeper client is disconnected at once,
    // which Curator reports as SUSPENDED (and Flink's ZooKeeper HA, without its tolerance, as a
    // revocation).
    proxy.reset();
    Thread.sleep(5000); // The blip's length, not an assertion.
    proxy.heal();
    long afterBlip = latest(checkpoints(id));
    await("checkpoints after the blip").atMost(WAIT).until(() -> latest(checkpoints(id)) > afterBlip + 2);
    assertThat(epoch(id)).as("the blip kept the term").isEqualTo(1);
    assertThat(firstSeen(records)).as("the task was not restarted").containsExactly(0L);

    long beforeKill = latest(checkpoints(id));
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    jobManagerPid(records, 2);
    await("attempt 2 leads").atMost(WAIT).until(() -> epoch(id) >= 2);
    await("the task restarted").atMost(WAIT).until(() -> firstSeen(records).size() >= 2);
    await("attempt 2 checkpoints").atMost(WAIT).until(() -> latest(checkpoints(id)) > beforeKill + 2);

    List<Long> starts = firstSeen(records);
    assertThat(starts.get(starts.size() - 1)).as("the task resumed from a checkpoint").isGreaterThan(0);
    await("the restored checkpoint in the JobManager's statistics").atMost(WAIT)
        .until(() -> restoredCheckpoint(id) >= 0);
    assertThat(restoredCheckpoint(id)).as("attempt 2 restored attempt 1's latest checkpoint")
        .isGreaterThanOrEqualTo(beforeKill);
    assertThat(yarnClient.getApplicationReport(id).getYarnApplicationState())
        .isEqualTo(YarnApplicationState.RUNNING);
    assertThat(yarnClient.getApplicationReport(id).getCurrentApplicationAttemptId().getAttemptId())
        .isEqualTo(2);
  }
}
