package io.amlease.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * One real ZooKeeper server and one MiniYARNCluster (1 RM, N NMs) in this JVM, with everything they
 * write under one work directory. Containers are real processes, children of this JVM.
 *
 * <p>Built to be shared: the demo uses it, and a test fixture can delegate to it (pass extra YARN
 * settings such as a container executor through {@link Settings#yarnOverrides}).
 */
public final class EmbeddedCluster implements AutoCloseable {
  /** MiniYARNCluster takes its base directory only from this system property (GenericTestUtils). */
  private static final String TEST_DATA_PROPERTY = "test.build.data";
  private static final Object SYSTEM_PROPERTY_LOCK = new Object();

  /**
   * @param name the cluster's name (also its directory name)
   * @param workDir everything the cluster writes goes below it
   * @param nodeManagers NodeManagers to start
   * @param zkTick ZooKeeper's tickTime: it grants sessions of 2–20 ticks
   * @param amExpiry how long the RM waits for a silent AM (3.5.0's default is 15 min)
   * @param yarnOverrides further YARN settings, applied last
   */
  public record Settings(String name, Path workDir, int nodeManagers, Duration zkTick,
      Duration amExpiry, Map<String, String> yarnOverrides) {
    public Settings {
      if (nodeManagers < 1) {
        throw new IllegalArgumentException("nodeManagers must be at least 1, not " + nodeManagers);
      }
      yarnOverrides = Map.copyOf(yarnOverrides);
    }

    /** 500 ms ticks (sessions of 1–10 s, so expiry is quick to show) and a 10 s AM expiry. */
    public static Settings quick(String name, Path workDir, int nodeManagers) {
      return new Settings(name, workDir, nodeManagers, Duration.ofMillis(500),
          Duration.ofSeconds(10), Map.of());
    }
  }

  private final Settings settings;
  private final TestingServer zk;
  private final MiniYARNCluster yarn;
  private final Path amConfDir;

  private EmbeddedCluster(Settings settings, TestingServer zk, MiniYARNCluster yarn) {
    this.settings = settings;
    this.zk = zk;
    this.yarn = yarn;
    this.amConfDir = settings.workDir().resolve("am-conf");
  }

  /** Starts ZooKeeper, then YARN; waits until every NodeManager has registered. */
  public static EmbeddedCluster start(Settings s) throws Exception {
    Files.createDirectories(s.workDir());
    TestingServer zk = new TestingServer(new InstanceSpec(
        s.workDir().resolve("zookeeper").toFile(), -1, -1, -1, true, -1,
        Math.toIntExact(s.zkTick().toMillis()), -1,
        // Loopback only: without clientPortAddress the server listens on every interface.
        Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
    MiniYARNCluster yarn = null;
    try {
      yarn = newMiniYarn(s);
      yarn.init(yarnConf(s));
      yarn.start();
      if (!yarn.waitForNodeManagersToConnect(Duration.ofSeconds(60).toMillis())) {
        throw new IllegalStateException("the NodeManagers did not register within 60s");
      }
      EmbeddedCluster cluster = new EmbeddedCluster(s, zk, yarn);
      cluster.writeAmSite(Map.of());
      return cluster;
    } catch (Exception | Error e) {
      if (yarn != null) {
        yarn.stop();
      }
      zk.close();
      throw e;
    }
  }

  private static MiniYARNCluster newMiniYarn(Settings s) {
    synchronized (SYSTEM_PROPERTY_LOCK) {
      // Read once, in the constructor; restored at once so nothing else in the JVM sees it.
      String before = System.getProperty(TEST_DATA_PROPERTY);
      System.setProperty(TEST_DATA_PROPERTY, s.workDir().resolve("yarn").toString());
      try {
        return new MiniYARNCluster(s.name(), s.nodeManagers(), 1, 1);
      } finally {
        if (before == null) {
          System.clearProperty(TEST_DATA_PROPERTY);
        } else {
          System.setProperty(TEST_DATA_PROPERTY, before);
        }
      }
    }
  }

  private static YarnConfiguration yarnConf(Settings s) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set("hadoop.tmp.dir", s.workDir().resolve("hadoop-tmp").toString());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 2048);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 4);
    conf.setLong(YarnConfiguration.RM_AM_EXPIRY_INTERVAL_MS, s.amExpiry().toMillis());
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    // Stopping takes seconds, not ~40 s: a NodeManager keeps an application (and waits for it on
    // stop) until its logs are deleted, 3 h by default, and its log deleter's pending task holds up
    // the stop for another 10 s. Logs are "deleted" at once but through the DeletionService's debug
    // delay, whose tasks do not hold up a stop: they stay readable until the work dir goes.
    conf.setLong(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 0);
    conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 3600);
    s.yarnOverrides().forEach(conf::set);
    return conf;
  }

  /**
   * Rewrites the yarn-site.xml that AM containers read when they start: the cluster's configuration
   * plus {@code overrides} (e.g. the scheduler address through a fault proxy, for AMs started after
   * this call). An AM container finds the RM only through a yarn-site.xml on its class path. Written
   * to a buffer and moved into place, so a starting AM never reads half a file.
   */
  public void writeAmSite(Map<String, String> overrides) throws IOException {
    Configuration site = new Configuration(yarn.getConfig());
    overrides.forEach(site::set);
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    site.writeXml(buf);
    Files.createDirectories(amConfDir);
    Path file = amConfDir.resolve("yarn-site.xml");
    Path tmp = amConfDir.resolve("yarn-site.xml.tmp");
    Files.write(tmp, buf.toByteArray());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * A client configuration for this cluster. Its {@code yarn.application.classpath} starts with the
   * directory of {@link #writeAmSite}'s file, so AM containers submitted with it find the RM.
   */
  public YarnConfiguration clientConf() {
    YarnConfiguration conf = new YarnConfiguration(yarn.getConfig());
    List<String> cp = new ArrayList<>(List.of(amConfDir.toString()));
    cp.addAll(Arrays.asList(conf.getTrimmedStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)));
    conf.setStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH, cp.toArray(String[]::new));
    return conf;
  }

  public String zkConnect() {
    return zk.getConnectString();
  }

  public int zkPort() {
    return zk.getPort();
  }

  public MiniYARNCluster yarn() {
    return yarn;
  }

  /** The RM web UI's base URL, as it really listens (set once the RM has started). */
  public String rmWebUrl() {
    return "http://" + yarn.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  /**
   * {@code url} (a tracking URL from an application report) on the RM web address it really listens
   * on: MiniYARNCluster's RM builds its proxy URLs from the configured address, port 0.
   */
  public String viaRmWeb(String url) {
    return URI.create(rmWebUrl()).resolve(URI.create(url).getPath()).toString();
  }

  /** The NodeManagers' container log directories (one subdirectory per application). */
  public List<Path> containerLogDirs() {
    List<Path> dirs = new ArrayList<>();
    for (int i = 0; i < settings.nodeManagers(); i++) {
      for (String dir : yarn.getNodeManager(i).getConfig()
          .getTrimmedStrings(YarnConfiguration.NM_LOG_DIRS)) {
        dirs.add(Path.of(URI.create("file:///").resolve(dir).getPath()));
      }
    }
    return dirs;
  }

  /** Stops YARN (its NodeManagers kill their containers) and then ZooKeeper. */
  @Override
  public void close() throws IOException {
    try {
      yarn.stop();
    } finally {
      zk.close();
    }
  }
}
