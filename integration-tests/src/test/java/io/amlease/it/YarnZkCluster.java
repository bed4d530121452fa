package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.am.client.SubmitCommand;
import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.PortReservation;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ha.HAServiceProtocol;
import org.apache.hadoop.yarn.conf.HAUtil;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import java.util.Set;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One MiniYARNCluster (1 RM, or 2 in HA; 2 NMs) and one real ZooKeeper, shared by a test class (starting the
 * cluster takes ~7 s and stopping it ~15 s here), with a YARN client and a ZooKeeper client for
 * looking at both. A JUnit extension: {@code @RegisterExtension static final YarnZkCluster cluster =
 * new YarnZkCluster("name");} starts it before the class's tests and stops it after them.
 */
final class YarnZkCluster implements BeforeAllCallback, AfterAllCallback {
  private static final int NODE_MANAGERS = 2;
  /** The node label the cluster's queues are configured for (see {@link #labelNode}). */
  static final String LABEL = "ssd";
  /** The yarn-site.xml AM containers read: on the test class path, as the client adds it. */
  private static final Path AM_SITE = Path.of("target", "test-classes", "yarn-site.xml");
  private final String name;
  private final boolean rmHa;
  /** Kerberos and HDFS, for a secure cluster; null for a plain one. */
  private final SecureHadoop secure;
  private volatile String lastSubmitErr = "";
  private static final HAServiceProtocol.StateChangeRequestInfo BY_USER =
      new HAServiceProtocol.StateChangeRequestInfo(HAServiceProtocol.RequestSource.REQUEST_BY_USER);
  /** The index of the active RM. */
  private int activeRm;
  private TestingServer zk;
  private MiniYARNCluster yarn;
  private YarnClient yarnClient;
  private CuratorFramework zkClient;

  YarnZkCluster(String name) {
    this(name, false);
  }

  /**
   * With {@code rmHa}, two RMs in HA (rm0 active) keep their state in a shared file store and
   * recover work-preserving ({@link #restartResourceManager()}, {@link #failOverResourceManager()}),
   * as production RMs are configured for long-running applications; everyone retries the RM
   * every 500 ms instead of 30 s.
   */
  YarnZkCluster(String name, boolean rmHa) {
    this(name, rmHa, null);
  }

  /**
   * A secure cluster: Kerberos for every service and HDFS as the default (staging) filesystem,
   * both from {@code secure}, which this cluster closes with itself.
   */
  YarnZkCluster(String name, SecureHadoop secure) {
    this(name, false, secure);
  }

  private YarnZkCluster(String name, boolean rmHa, SecureHadoop secure) {
    this.name = name;
    this.rmHa = rmHa;
    this.secure = secure;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    // 500 ms ticks: ZooKeeper grants sessions of 1–10 s, so session expiry is quick to test. Bound
    // to loopback: without clientPortAddress the server listens on every interface.
    zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1,
        Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1"), true);
    // The AM site an earlier class wrote is on this class path too: its RM addresses and recovery
    // settings must not reach this cluster.
    Files.deleteIfExists(AM_SITE);
    YarnConfiguration conf = new YarnConfiguration();
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 2048);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setInt(YarnConfiguration.RM_AM_MAX_ATTEMPTS, 4);
    // 3.5.0's default is 15 min; a lost AM must be noticed within the test.
    conf.setInt(YarnConfiguration.RM_AM_EXPIRY_INTERVAL_MS, 10_000);
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    // As the README recommends for amlease: an attempt that failed on a node (exit 75, lease
    // lost) has its successor placed on another node while the cluster has one. The node's name
    // must include its port, or the two NodeManagers on this host would be one node.
    conf.setBoolean(YarnConfiguration.AM_SCHEDULING_NODE_BLACKLISTING_ENABLED, true);
    conf.setFloat(YarnConfiguration.AM_SCHEDULING_NODE_BLACKLISTING_DISABLE_THRESHOLD, 1.0f);
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    // Node labels, for the placement tests: none exists until a test adds one (labelNode); the
    // default queue may use all of LABEL's partition.
    conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
    conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR,
        Files.createTempDirectory(name + "-node-labels").toUri().toString());
    conf.set("yarn.scheduler.capacity.root.accessible-node-labels", "*");
    conf.set("yarn.scheduler.capacity.root.accessible-node-labels." + LABEL + ".capacity", "100");
    conf.set("yarn.scheduler.capacity.root.default.accessible-node-labels", LABEL);
    conf.set("yarn.scheduler.capacity.root.default.accessible-node-labels." + LABEL + ".capacity",
        "100");
    // Lets a test cut a container off from its NodeManager's kill (a lost or frozen node).
    conf.setClass(YarnConfiguration.NM_CONTAINER_EXECUTOR, LostNodeExecutor.class,
        org.apache.hadoop.yarn.server.nodemanager.ContainerExecutor.class);
    if (rmHa) {
      Path store = Files.createTempDirectory(name + "-rm-state");
      conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
      conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
      conf.set(YarnConfiguration.RM_STORE,
          "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
      conf.set(YarnConfiguration.FS_RM_STATE_STORE_URI, store.toUri().toString());
      conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 500);
      // Two RMs, rm0 active; the test moves the active role by hand (no elector).
      conf.set(YarnConfiguration.RM_HA_IDS, "rm0,rm1");
      conf.set(YarnConfiguration.RM_CLUSTER_ID, name);
      conf.setBoolean(YarnConfiguration.AUTO_FAILOVER_ENABLED, false);
      // By default the NodeManagers call the RM object they started with, which a restart or
      // failover leaves behind: over RPC they fail over as the AM does, which needs fixed ports.
      conf.setBoolean("yarn.minicluster.fixed.ports", true);
      conf.setBoolean("yarn.minicluster.use-rpc", true);
      for (String rm : List.of("rm0", "rm1")) {
        for (String key : List.of(YarnConfiguration.RM_ADDRESS,
            YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
            YarnConfiguration.RM_ADMIN_ADDRESS, YarnConfiguration.RM_WEBAPP_ADDRESS)) {
          conf.set(HAUtil.addSuffix(key, rm), "127.0.0.1:" + PortReservation.one());
        }
      }
    }
    if (secure != null) {
      secure.configure(conf);
      secure.startDfs(conf);
    }
    yarn = new MiniYARNCluster(name, rmHa ? 2 : 1, NODE_MANAGERS, 1, 1);
    yarn.init(conf);
    yarn.start();
    yarn.waitForNodeManagersToConnect(Duration.ofSeconds(30).toMillis());
    writeAmSite(Map.of());
    yarnClient = YarnClient.createYarnClient();
    yarnClient.init(conf());
    yarnClient.start();
    zkClient = ZkClients.connectReader(zk.getConnectString(), Duration.ofSeconds(5));
  }

  /**
   * Writes the yarn-site.xml that AM containers read at start-up: the cluster's configuration with
   * {@code overrides} (e.g. the scheduler address through a fault proxy, for the AMs started after
   * this call). The AM container finds the RM only through a yarn-site.xml on its class path (the
   * client adds the test class path in mini-cluster mode). Written to a buffer and then moved into
   * place: neither the cluster's Configuration nor a starting AM may read a half-written file.
   */
  void writeAmSite(Map<String, String> overrides) throws IOException {
    if (!overrides.isEmpty()) {
      noHa("writeAmSite with overrides"); // The AM would read the rm-id-suffixed keys instead.
    }
    Configuration site = new Configuration(yarn.getConfig());
    overrides.forEach(site::set);
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    site.writeXml(buf);
    Path file = AM_SITE;
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling("yarn-site.xml.tmp");
    Files.write(tmp, buf.toByteArray());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** host:port of the RM's scheduler (AM-facing) service. */
  InetSocketAddress schedulerAddress() {
    noHa("schedulerAddress");
    return yarn.getConfig().getSocketAddr(YarnConfiguration.RM_SCHEDULER_ADDRESS,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_ADDRESS, YarnConfiguration.DEFAULT_RM_SCHEDULER_PORT);
  }

  /**
   * {@code url} (a tracking URL from an application report) with the RM web address it really
   * listens on: MiniYARNCluster's RM builds its proxy URLs from its configured address, port 0.
   */
  String viaRmWeb(String url) {
    noHa("viaRmWeb");
    String web = yarn.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
    return URI.create("http://" + web).resolve(URI.create(url).getPath()).toString();
  }

  /** The text of {@code file} (e.g. AppMaster.stderr) in {@code container}'s log directory. */
  String containerLog(ContainerId container, String file)
      throws IOException {
    for (int i = 0; i < NODE_MANAGERS; i++) {
      for (String dir : yarn.getNodeManager(i).getConfig()
          .getTrimmedStrings(YarnConfiguration.NM_LOG_DIRS)) {
        Path log = Path.of(URI.create("file:///").resolve(dir).getPath())
            .resolve(container.getApplicationAttemptId().getApplicationId().toString())
            .resolve(container.toString()).resolve(file);
        if (Files.exists(log)) {
          return Files.readString(log);
        }
      }
    }
    throw new FileNotFoundException(file + " of " + container);
  }

  /**
   * Runs {@code amlease submit} in-process with the shaded AM jar; returns the application id.
   * Leading {@code -Dkey=value} arguments stay in front: Hadoop's generic options parser stops at
   * the first argument it does not know.
   */
  ApplicationId submit(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of(args));
    int firstOwn = 0;
    while (firstOwn < all.size() && all.get(firstOwn).startsWith("-D")) {
      firstOwn++;
    }
    all.addAll(firstOwn, List.of("--am-jar", amJar().toString()));
    int exit = SubmitCommand.submit(conf(), new PrintStream(out, true),
        new PrintStream(err, true), all.toArray(String[]::new));
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
    lastSubmitErr = err.toString(StandardCharsets.UTF_8);
    return ApplicationId.fromString(out.toString(StandardCharsets.UTF_8).trim());
  }

  /** What the last successful {@link #submit} printed on stderr. */
  String lastSubmitErr() {
    return lastSubmitErr;
  }

  Configuration conf() {
    return new YarnConfiguration(yarn.getConfig());
  }

  String zkConnect() {
    return zk.getConnectString();
  }

  static Path amJar() {
    Path target = Path.of("..", "am-launcher", "target").toAbsolutePath().normalize();
    try (var files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().endsWith("-am.jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no shaded AM jar in " + target
              + "; run mvn package"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (zkClient != null) {
      zkClient.close();
    }
    if (yarnClient != null) {
      yarnClient.stop();
    }
    if (yarn != null) {
      stopQuickly();
    }
    if (zk != null) {
      zk.close();
    }
    if (secure != null) {
      secure.close();
    }
    Files.deleteIfExists(AM_SITE);
  }

  /**
   * Stops the cluster in seconds instead of about 40. MiniYARNCluster stops one NodeManager after
   * the other, and each waits twice for nothing a finished test needs: up to 10 s for the log
   * deletions it scheduled hours ahead (yarn.nodemanager.log.retain-seconds), and about 6 s for
   * those applications to leave it; then each RM waits 5 s for AMs that never unregistered (an AM
   * that exits 75 does not). Here the NodeManagers stop side by side, with their pending log
   * deletions dropped, and the RMs without the wait. Every container is still killed.
   */
  private void stopQuickly() throws InterruptedException {
    try {
      List<Thread> stops = new ArrayList<>();
      for (int i = 0; i < NODE_MANAGERS; i++) {
        org.apache.hadoop.yarn.server.nodemanager.NodeManager nm = yarn.getNodeManager(i);
        if (nm == null) {
          continue; // The cluster failed before this one was made.
        }
        dropPendingLogDeletions(nm);
        Thread t = new Thread(nm::stop, name + "-nm-" + i + "-stop");
        t.start();
        stops.add(t);
      }
      for (Thread t : stops) {
        t.join(Duration.ofSeconds(60).toMillis());
      }
      // The standby first, as yarn.stop() would: stopping the active one first gives nothing to
      // the other to take over.
      for (int i = (rmHa ? 1 : 0); i >= 0; i--) {
        if (i != activeRm) {
          yarn.stopResourceManager(i);
        }
      }
      yarn.stopResourceManager(activeRm);
    } finally {
      yarn.stop();
    }
  }

  /** Reflection into Hadoop's NonAggregatingLogHandler: at worst the stop is slow again. */
  private static void dropPendingLogDeletions(
      org.apache.hadoop.yarn.server.nodemanager.NodeManager nm) {
    try {
      Object cm = nm.getNMContext().getContainerManager();
      java.lang.reflect.Field handler = org.apache.hadoop.yarn.server.nodemanager.containermanager
          .ContainerManagerImpl.class.getDeclaredField("logHandler");
      handler.setAccessible(true);
      Object h = handler.get(cm);
      java.lang.reflect.Field sched = h.getClass().getDeclaredField("sched");
      sched.setAccessible(true);
      ((java.util.concurrent.ScheduledThreadPoolExecutor) sched.get(h))
          .setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    } catch (ReflectiveOperationException | RuntimeException e) {
      System.err.println("YarnZkCluster: cannot drop pending log deletions (" + e + ")");
    }
  }

  private org.apache.hadoop.yarn.server.resourcemanager.RMContext activeRmContext() {
    return yarn.getResourceManager().getRMContext();
  }

  /** What reads one RM's unsuffixed address keys means nothing with two RMs in HA. */
  private void noHa(String what) {
    if (rmHa) {
      throw new IllegalStateException(what + " does not work on a cluster with RM HA");
    }
  }

  /**
   * The nodes the active RM keeps {@code id}'s AM attempts off (YARN's AM blacklisting), by their
   * scheduler names.
   */
  List<String> amBlacklist(ApplicationId id) {
    return activeRmContext().getRMApps().get(id).getCurrentAppAttempt()
        .getAMBlacklistManager().getBlacklistUpdates().getBlacklistAdditions();
  }

  /**
   * Stops the active RM and starts a new one in its place, which recovers from the state store
   * once it is made active again (a cluster made with {@code rmHa}; the other RM stays standby);
   * returns once the NodeManagers have re-registered.
   */
  void restartResourceManager() throws Exception {
    yarn.restartResourceManager(activeRm);
    makeActive(activeRm);
  }

  /**
   * Makes the active RM standby and the other one active, which recovers from the state store
   * (a cluster made with {@code rmHa}); returns once the NodeManagers have re-registered with it.
   */
  void failOverResourceManager() throws Exception {
    yarn.getResourceManager(activeRm).getRMContext().getRMAdminService()
        .transitionToStandby(BY_USER);
    makeActive(1 - activeRm);
  }

  private void makeActive(int rm) throws Exception {
    yarn.getResourceManager(rm).getRMContext().getRMAdminService()
        .transitionToActive(BY_USER);
    activeRm = rm;
    assertThat(yarn.waitForNodeManagersToConnect(Duration.ofSeconds(60).toMillis()))
        .as("NodeManagers registered with rm" + rm).isTrue();
  }

  /**
   * Puts {@link #LABEL} on NodeManager {@code index} and returns its id; {@link #removeLabels} takes
   * it off again. The label is exclusive: only requests for it may use the node, and they may use
   * no other, so where a container runs shows which label it asked for.
   */
  NodeId labelNode(int index) throws IOException {
    addClusterLabel(LABEL);
    RMNodeLabelsManager labels = activeRmContext().getNodeLabelManager();
    NodeId node = yarn.getNodeManager(index).getNMContext().getNodeId();
    labels.replaceLabelsOnNode(Map.of(node, Set.of(LABEL)));
    return node;
  }

  /** Adds an exclusive node label to the cluster (on no node, and no queue may use it but LABEL). */
  void addClusterLabel(String label) throws IOException {
    RMNodeLabelsManager labels = activeRmContext().getNodeLabelManager();
    if (!labels.getClusterNodeLabelNames().contains(label)) {
      labels.addToCluserNodeLabels(List.of(NodeLabel.newInstance(label, true)));
    }
  }

  /**
   * Takes every label off every node, and every label but {@link #LABEL} (which the queues name)
   * out of the cluster.
   */
  void removeLabels() throws IOException {
    RMNodeLabelsManager labels = activeRmContext().getNodeLabelManager();
    Map<NodeId, Set<String>> none = new java.util.HashMap<>();
    for (NodeId n : labels.getNodeLabels().keySet()) {
      none.put(n, Set.of());
    }
    labels.replaceLabelsOnNode(none);
    Set<String> extra = new java.util.HashSet<>(labels.getClusterNodeLabelNames());
    extra.remove(LABEL);
    labels.removeFromClusterNodeLabels(extra);
  }

  /** A YARN client of the cluster. */
  YarnClient yarn() {
    return yarnClient;
  }

  /** A ZooKeeper client (no credentials) of the test ZooKeeper. */
  CuratorFramework zk() {
    return zkClient;
  }

  /** The node {@code attempt}'s AM container was placed on (asked while the container runs). */
  NodeId amNode(ApplicationAttemptId attempt) throws Exception {
    return yarnClient.getContainerReport(yarnClient.getApplicationAttemptReport(attempt)
        .getAMContainerId()).getAssignedNode();
  }

  /**
   * How many of {@code attempt}'s containers the active RM holds as RUNNING: reported running by
   * their NodeManager. (A container report says RUNNING for any container not finished, also one
   * only handed to the AM; the RM kills those when the attempt fails, and hands the next attempt
   * only the others.)
   */
  long rmRunning(ApplicationAttemptId attempt) {
    var app = ((org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler<?, ?>)
        activeRmContext().getScheduler()).getApplicationAttempt(attempt);
    return app == null ? 0 : app.getLiveContainers().stream().filter(c -> c.getState()
        == org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState.RUNNING)
        .count();
  }

  /** The number of {@code id}'s current attempt (1, 2, …). */
  int currentAttempt(ApplicationId id) throws Exception {
    return yarnClient.getApplicationReport(id).getCurrentApplicationAttemptId().getAttemptId();
  }

  int zkPort() {
    return zk.getPort();
  }
}
