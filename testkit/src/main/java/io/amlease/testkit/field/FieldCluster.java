package io.amlease.testkit.field;

import io.amlease.testkit.PortReservation;
import io.amlease.testkit.Trees;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * A Hadoop cluster on this one machine as a real install runs it: a ResourceManager
 * (work-preserving recovery, a state store on disk that survives its restart), NodeManagers, a
 * NameNode and a DataNode, and a 3-server ZooKeeper ensemble, each in its own process started from
 * its own main class with a generated conf dir. Each node (a NodeManager and every container it
 * launches) runs as its own Unix user, so that {@link Netfilter} can really cut a node off the
 * network: the RM expires it while what runs on it goes on, cut off from the RM, from ZooKeeper, or
 * both. Everything binds to 127.0.0.1 in the network namespace of the calling JVM, which must be a
 * namespace of its own ({@link NetNamespace}).
 *
 * <p>What it does not simulate: the nodes share one kernel, one clock and one disk, so a node's
 * clock cannot drift and a "crashed" node's files survive.
 */
public final class FieldCluster implements AutoCloseable {
    private static final Duration START_WITHIN = Duration.ofSeconds(120);
    private static final Pattern NODE_STATE = Pattern.compile("\"state\":\"(\\w+)\",\"id\":\"([^\"]+)\"");

    /**
     * @param nodes how many NodeManagers (each its own node and user)
     * @param nodeExpiry {@code yarn.nm.liveness-monitor.expiry-interval-ms}: how long the RM waits
     *     for a silent node before it is LOST (and an AM's attempt with it)
     * @param jars the Hadoop and ZooKeeper jars every daemon and container runs on
     * @param extra more {@code yarn-site.xml} properties (e.g. for the application under test)
     */
    public record Options(int nodes, Duration nodeExpiry, List<Path> jars, Map<String, String> extra) {
        public Options {
            if (nodes < 1 || nodes > 8) {
                throw new IllegalArgumentException("nodes must be within [1, 8]: " + nodes);
            }
            jars = List.copyOf(jars);
            extra = Map.copyOf(extra);
        }

        /**
         * Options whose jars are those a class-path file lists ({@code dependency:build-classpath}'s
         * output: one line, entries joined by ':'; directories are skipped).
         */
        public static Options jarsListedIn(Path classpathFile, int nodes, Duration nodeExpiry)
                throws IOException {
            String cp = Files.readString(classpathFile).strip();
            List<Path> jars = Arrays.stream(cp.split(":")).filter(e -> e.endsWith(".jar")).map(Path::of).toList();
            return new Options(nodes, nodeExpiry, jars, Map.of());
        }
    }

    /** One node: its user, its NodeManager, and the ports that NodeManager serves. */
    public record Node(int index, NodeUser user, Daemon nodeManager, int rpcPort, Path confDir) {
        /** Whether {@code nodeId} (the RM's, {@code <host>:<port>}) is this node's NodeManager. */
        public boolean is(String nodeId) {
            return nodeId.endsWith(":" + rpcPort);
        }

        /** Where the node's NodeManager writes its containers' logs: {@code <app>/<container>/<file>}. */
        public Path containerLog(String app, String container, String file) {
            return confDir.getParent().resolve("log").resolve(app).resolve(container).resolve(file);
        }
    }

    private final Path base;
    private final Path confDir;
    private final Path logs;
    private final String classpath;
    private final List<Daemon> zookeepers;
    private final List<Integer> zkClientPorts;
    private final List<Integer> zkPeerPorts;
    private final List<Integer> zkElectionPorts;
    private final List<NodeUser> zkUsers;
    private final Daemon nameNode;
    private final Daemon dataNode;
    private final Daemon resourceManager;
    private final List<Node> nodes;
    private final Map<String, Integer> rmPorts;
    private final int nameNodeHttpPort;
    private final Netfilter netfilter;
    private final ResourceManagerLog rmLog;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private FieldCluster(Path base, Path confDir, Path logs, String classpath, List<Daemon> zookeepers,
            List<Integer> zkClientPorts, List<Integer> zkPeerPorts, List<Integer> zkElectionPorts,
            List<NodeUser> zkUsers, Daemon nameNode, Daemon dataNode,
            Daemon resourceManager, List<Node> nodes, Map<String, Integer> rmPorts, int nameNodeHttpPort,
            Netfilter netfilter) {
        this.base = base;
        this.confDir = confDir;
        this.logs = logs;
        this.classpath = classpath;
        this.zookeepers = zookeepers;
        this.zkClientPorts = zkClientPorts;
        this.zkPeerPorts = zkPeerPorts;
        this.zkElectionPorts = zkElectionPorts;
        this.zkUsers = zkUsers;
        this.nameNode = nameNode;
        this.dataNode = dataNode;
        this.resourceManager = resourceManager;
        this.nodes = nodes;
        this.rmPorts = rmPorts;
        this.nameNodeHttpPort = nameNodeHttpPort;
        this.netfilter = netfilter;
        this.rmLog = new ResourceManagerLog(logs.resolve("resourcemanager.out"));
    }

    /** Starts the whole cluster and returns once every server serves and every node is RUNNING. */
    public static FieldCluster start(Options options) throws IOException, InterruptedException {
        NetNamespace.requirePrivate();
        Netfilter netfilter = new Netfilter();
        netfilter.track(ownUid()); // The RM's, cut from a partitioned node's NodeManager.
        Path base = Files.createTempDirectory(Path.of("/tmp"), "amlease-field-");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path conf = Files.createDirectories(base.resolve("conf"));
        Path logs = Files.createDirectories(base.resolve("logs"));
        Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path lib = HadoopLib.of(options.jars());
        String classpath = conf + ":" + lib + "/*";

        int n = options.nodes();
        int portCount = 3 * 3 + 5 + 7 + 5 * n;
        PortReservation ports = PortReservation.of(portCount);
        NetNamespace.reserveForServers(IntStream.range(0, portCount).map(ports::get).boxed().toList());
        int next = 0;
        List<Integer> zkClient = new ArrayList<>();
        List<Integer> zkPeer = new ArrayList<>();
        List<Integer> zkElection = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            zkClient.add(ports.get(next++));
            zkPeer.add(ports.get(next++));
            zkElection.add(ports.get(next++));
        }
        int nnRpc = ports.get(next++);
        int nnHttp = ports.get(next++);
        int dnData = ports.get(next++);
        int dnHttp = ports.get(next++);
        int dnIpc = ports.get(next++);
        Map<String, Integer> rm = new LinkedHashMap<>();
        for (String key : List.of("address", "scheduler.address", "resource-tracker.address",
                "admin.address", "webapp.address", "webapp.https.address", "proxy")) {
            rm.put(key, ports.get(next++));
        }

        // ZooKeeper, each server in its own process and as its own user, so that nftables can cut
        // one server off from its peers (what it sends to their quorum and election ports).
        String servers = IntStream.range(0, 3).mapToObj(i -> "server." + (i + 1) + "=127.0.0.1:"
                + zkPeer.get(i) + ":" + zkElection.get(i)).collect(Collectors.joining("\n"));
        Map<String, String> javaEnv = Map.of("JAVA_HOME", System.getProperty("java.home"));
        List<String> log4j = List.of("-Dlog4j2.configurationFile=" + conf.resolve("log4j2.properties"),
                "-Dhadoop.log.dir=" + logs, "-Dyarn.log.dir=" + logs);
        Files.writeString(conf.resolve("log4j2.properties"), String.join("\n",
                "status = warn", "appender.out.type = Console", "appender.out.name = out",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = %d{ISO8601} %-5p [%t] %c{1}: %m%n",
                "rootLogger.level = info", "rootLogger.appenderRef.out.ref = out", ""));
        List<Daemon> zks = new ArrayList<>();
        List<NodeUser> zkUsers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            NodeUser zkUser = NodeUser.ensure("amlease-zk" + (i + 1));
            netfilter.track(zkUser.uid());
            zkUsers.add(zkUser);
            Path dir = Files.createDirectories(base.resolve("zk" + (i + 1)));
            Commands.run(List.of("chown", zkUser.uid() + ":" + zkUser.gid(), dir.toString()));
            Files.writeString(dir.resolve("myid"), Integer.toString(i + 1));
            Path cfg = dir.resolve("zoo.cfg");
            Files.writeString(cfg, String.join("\n", "tickTime=500", "initLimit=20", "syncLimit=6",
                    "dataDir=" + dir, "clientPort=" + zkClient.get(i), "clientPortAddress=127.0.0.1",
                    "minSessionTimeout=1000", "maxSessionTimeout=60000", "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr,ruok,stat,cons", "quorumListenOnAllIPs=false", servers, ""));
            zks.add(new Daemon("zk" + (i + 1), Daemon.java(Optional.of(zkUser), classpath, log4j,
                    "org.apache.zookeeper.server.quorum.QuorumPeerMain", List.of(cfg.toString())), javaEnv, logs));
        }

        // The cluster's conf dir, as a client (and every container) reads it.
        Map<String, String> core = new LinkedHashMap<>();
        core.put("fs.defaultFS", "hdfs://127.0.0.1:" + nnRpc);
        core.put("hadoop.tmp.dir", base.resolve("tmp").toString());
        core.put("ipc.client.connect.max.retries", "3");
        core.put("ipc.client.connect.max.retries.on.timeouts", "3");
        SiteXml.write(conf.resolve("core-site.xml"), core);
        Map<String, String> hdfs = new LinkedHashMap<>();
        hdfs.put("dfs.namenode.name.dir", base.resolve("hdfs/name").toString());
        hdfs.put("dfs.datanode.data.dir", base.resolve("hdfs/data").toString());
        hdfs.put("dfs.replication", "1");
        hdfs.put("dfs.permissions.enabled", "false");
        hdfs.put("dfs.namenode.rpc-address", "127.0.0.1:" + nnRpc);
        hdfs.put("dfs.namenode.http-address", "127.0.0.1:" + nnHttp);
        hdfs.put("dfs.datanode.address", "127.0.0.1:" + dnData);
        hdfs.put("dfs.datanode.http.address", "127.0.0.1:" + dnHttp);
        hdfs.put("dfs.datanode.ipc.address", "127.0.0.1:" + dnIpc);
        hdfs.put("dfs.datanode.hostname", "127.0.0.1");
        hdfs.put("dfs.namenode.safemode.extension", "0");
        hdfs.put("dfs.namenode.safemode.min.datanodes", "0");
        hdfs.put("dfs.datanode.du.reserved", "0");
        SiteXml.write(conf.resolve("hdfs-site.xml"), hdfs);
        Map<String, String> yarn = new LinkedHashMap<>();
        yarn.put("yarn.resourcemanager.hostname", "127.0.0.1");
        for (Map.Entry<String, Integer> e : rm.entrySet()) {
            if (!e.getKey().equals("proxy")) {
                yarn.put("yarn.resourcemanager." + e.getKey(), "127.0.0.1:" + e.getValue());
            }
        }
        yarn.put("yarn.web-proxy.address", "127.0.0.1:" + rm.get("proxy"));
        yarn.put("yarn.resourcemanager.recovery.enabled", "true");
        yarn.put("yarn.resourcemanager.work-preserving-recovery.enabled", "true");
        yarn.put("yarn.resourcemanager.store.class",
                "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
        yarn.put("yarn.resourcemanager.fs.state-store.uri", base.resolve("rm-state").toUri().toString());
        yarn.put("yarn.nm.liveness-monitor.expiry-interval-ms", Long.toString(options.nodeExpiry().toMillis()));
        yarn.put("yarn.resourcemanager.nm-container-queuing.enabled", "false");
        yarn.put("yarn.am.liveness-monitor.expiry-interval-ms", Long.toString(options.nodeExpiry().toMillis()));
        yarn.put("yarn.resourcemanager.am.max-attempts", "10");
        yarn.put("yarn.scheduler.minimum-allocation-mb", "128");
        yarn.put("yarn.scheduler.maximum-allocation-mb", "2048");
        yarn.put("yarn.nodemanager.resource.memory-mb", "4096");
        yarn.put("yarn.nodemanager.resource.cpu-vcores", "8");
        yarn.put("yarn.nodemanager.vmem-check-enabled", "false");
        yarn.put("yarn.nodemanager.pmem-check-enabled", "false");
        yarn.put("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "99.9");
        yarn.put("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-mb", "0");
        yarn.put("yarn.nodemanager.hostname", "127.0.0.1");
        yarn.put("yarn.nodemanager.recovery.enabled", "true");
        yarn.put("yarn.nodemanager.recovery.supervised", "true");
        yarn.put("yarn.nodemanager.delete.debug-delay-sec", "600");
        yarn.put("yarn.nodemanager.env-whitelist",
                "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,HADOOP_YARN_HOME,PATH,LANG,TZ");
        yarn.put("yarn.application.classpath", classpath.replace(':', ','));
        yarn.put("yarn.client.nodemanager-connect.max-wait-ms", "10000");
        yarn.put("yarn.client.nodemanager-connect.retry-interval-ms", "1000");
        // Clients and AMs retry a restarted RM every second, not every 30 s: with the short AM expiry
        // above, the default interval would let a recovered attempt expire before its AM is back.
        yarn.put("yarn.resourcemanager.connect.retry-interval.ms", "1000");
        yarn.putAll(options.extra());
        SiteXml.write(conf.resolve("yarn-site.xml"), yarn);
        SiteXml.write(conf.resolve("capacity-scheduler.xml"), Map.of(
                "yarn.scheduler.capacity.root.queues", "default",
                "yarn.scheduler.capacity.root.default.capacity", "100",
                "yarn.scheduler.capacity.root.default.maximum-capacity", "100",
                "yarn.scheduler.capacity.maximum-am-resource-percent", "0.5",
                // One container per node heartbeat: a few containers spread over the nodes instead
                // of landing on whichever heartbeats first, so a node fault hits some, not all.
                "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled", "false"));

        // HDFS: formatted once, as an operator would, then the NameNode and one DataNode.
        Daemon format = new Daemon("namenode-format", Daemon.java(Optional.empty(), classpath, log4j,
                "org.apache.hadoop.hdfs.server.namenode.NameNode", List.of("-format", "-force",
                        "-nonInteractive")), javaEnv, logs);
        Daemon nn = new Daemon("namenode", Daemon.java(Optional.empty(), classpath, log4j,
                "org.apache.hadoop.hdfs.server.namenode.NameNode", List.of()), javaEnv, logs);
        Daemon dn = new Daemon("datanode", Daemon.java(Optional.empty(), classpath, log4j,
                "org.apache.hadoop.hdfs.server.datanode.DataNode", List.of()), javaEnv, logs);
        Daemon rmDaemon = new Daemon("resourcemanager", Daemon.java(Optional.empty(), classpath, log4j,
                "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager", List.of()), javaEnv, logs);

        // The nodes: a conf dir of their own (their ports and dirs on top of the cluster's).
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            NodeUser user = NodeUser.ensure("amlease-node" + (i + 1));
            netfilter.track(user.uid());
            Path dir = Files.createDirectories(base.resolve("node" + (i + 1)));
            Path nodeConf = Files.createDirectories(dir.resolve("conf"));
            for (String f : List.of("core-site.xml", "hdfs-site.xml", "capacity-scheduler.xml",
                    "log4j2.properties")) {
                Files.copy(conf.resolve(f), nodeConf.resolve(f));
            }
            Map<String, String> nm = new LinkedHashMap<>(yarn);
            int rpc = ports.get(next++);
            nm.put("yarn.nodemanager.address", "127.0.0.1:" + rpc);
            nm.put("yarn.nodemanager.localizer.address", "127.0.0.1:" + ports.get(next++));
            nm.put("yarn.nodemanager.webapp.address", "127.0.0.1:" + ports.get(next++));
            nm.put("yarn.nodemanager.collector-service.address", "127.0.0.1:" + ports.get(next++));
            nm.put("yarn.nodemanager.amrmproxy.address", "127.0.0.1:" + ports.get(next++));
            for (String d : List.of("local", "log", "recovery")) {
                Path p = Files.createDirectories(dir.resolve(d));
                Commands.run(List.of("chown", user.uid() + ":" + user.gid(), p.toString()));
            }
            nm.put("yarn.nodemanager.local-dirs", dir.resolve("local").toString());
            nm.put("yarn.nodemanager.log-dirs", dir.resolve("log").toString());
            nm.put("yarn.nodemanager.recovery.dir", dir.resolve("recovery").toString());
            SiteXml.write(nodeConf.resolve("yarn-site.xml"), nm);
            String nodeClasspath = nodeConf + ":" + lib + "/*";
            Daemon daemon = new Daemon("nodemanager" + (i + 1), Daemon.java(Optional.of(user), nodeClasspath,
                    List.of("-Dlog4j2.configurationFile=" + nodeConf.resolve("log4j2.properties"),
                            "-Dhadoop.log.dir=" + dir.resolve("log"), "-Dyarn.log.dir=" + dir.resolve("log")),
                    "org.apache.hadoop.yarn.server.nodemanager.NodeManager", List.of()), javaEnv, logs);
            nodes.add(new Node(i + 1, user, daemon, rpc, nodeConf));
        }
        ports.close();

        FieldCluster cluster = new FieldCluster(base, conf, logs, classpath, zks, zkClient, zkPeer, zkElection,
                zkUsers, nn, dn,
                rmDaemon, nodes, rm, nnHttp, netfilter);
        boolean started = false;
        try {
            cluster.startAll(format);
            started = true;
            return cluster;
        } finally {
            if (!started) {
                cluster.close();
            }
        }
    }

    private void startAll(Daemon format) throws IOException, InterruptedException {
        for (Daemon zk : zookeepers) {
            zk.start();
        }
        int formatted = format.runToEnd(Duration.ofSeconds(60));
        if (formatted != 0) {
            throw new IOException("namenode -format exited " + formatted + "; see " + format.out());
        }
        nameNode.start();
        dataNode.start();
        resourceManager.start();
        for (Node node : nodes) {
            node.nodeManager().start();
        }
        await("a ZooKeeper quorum (one leader)", () -> zkModes().contains("leader"));
        await("HDFS with a live DataNode", () -> get("http://127.0.0.1:" + nameNodeHttpPort
                + "/jmx?qry=Hadoop:service=NameNode,name=FSNamesystemState").contains("\"NumLiveDataNodes\" : 1"));
        await(nodes.size() + " NodeManagers RUNNING", () -> nodeStates().values().stream()
                .filter("RUNNING"::equals).count() == nodes.size());
    }

    /** The conf dir a client reads ({@code core-site.xml}, {@code hdfs-site.xml}, {@code yarn-site.xml}). */
    public Path confDir() {
        return confDir;
    }

    /** Where every daemon's output goes ({@code <name>.out}). */
    public Path logs() {
        return logs;
    }

    /** Whether the RM has seen {@code containerId} RUNNING, as its own log records ({@link ResourceManagerLog}). */
    public boolean rmSawRunning(String containerId) throws IOException {
        return rmLog.sawRunning(containerId);
    }

    /** The class path of the cluster's own processes (conf dir first), for containers and clients. */
    public String classpath() {
        return classpath;
    }

    public List<Node> nodes() {
        return nodes;
    }

    public Node node(int index) {
        return nodes.get(index - 1);
    }

    public String zkConnectString() {
        return zkClientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    public String rmWebAddress() {
        return "127.0.0.1:" + rmPorts.get("webapp.address");
    }

    /** The RM's view of every node it knows, nodeId → state (RUNNING, LOST, SHUTDOWN, …). */
    public Map<String, String> nodeStates() throws IOException {
        String json = get("http://" + rmWebAddress() + "/ws/v1/cluster/nodes?states="
                + "NEW,RUNNING,UNHEALTHY,DECOMMISSIONED,DECOMMISSIONING,LOST,REBOOTED,SHUTDOWN");
        Map<String, String> states = new LinkedHashMap<>();
        Matcher m = NODE_STATE.matcher(json);
        while (m.find()) {
            states.put(m.group(2), m.group(1));
        }
        return states;
    }

    /**
     * The RM's state of {@code node}'s NodeManager, or empty if the RM does not know it. (The RM
     * names nodes by the host name 127.0.0.1 resolves to, {@code localhost} here.)
     */
    public Optional<String> nodeState(Node node) throws IOException {
        return nodeStates().entrySet().stream().filter(e -> node.is(e.getKey())).map(Map.Entry::getValue)
                .findFirst();
    }

    /** The node's NodeManager and everything it runs can no longer send to anyone, nor hear from anyone. */
    public void partition(Node node) throws IOException {
        netfilter.cut(node.user());
        cutResourceManagerFrom(node);
    }

    /** The node and the ResourceManager can no longer reach each other; ZooKeeper and HDFS it still can. */
    public void partitionFromResourceManager(Node node) throws IOException {
        netfilter.cut(node.user(), List.copyOf(rmPorts.values()));
        cutResourceManagerFrom(node);
    }

    /**
     * A partition cuts both ways: the RM calls the node too (its AM launcher stops a failed
     * attempt's AM container through the NodeManager's port). The RM runs as this JVM's user,
     * and nothing else of that user calls a NodeManager.
     */
    private void cutResourceManagerFrom(Node node) throws IOException {
        netfilter.cut(ownUid(), List.of(node.rpcPort()));
    }

    private static int ownUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** The node can no longer reach ZooKeeper; the RM and HDFS it still can. */
    public void partitionFromZooKeeper(Node node) throws IOException {
        netfilter.cut(node.user(), zkClientPorts);
    }

    /**
     * ZooKeeper server {@code server} (1-based) cut off from its peers: what it sends to their
     * quorum and election ports, what anyone sends to its own, and what it answers from them is dropped. Its clients still reach
     * it, so it goes on answering them from its own state until the leader has dropped it
     * ({@code syncLimit × tickTime}, 3 s here); then it drops them.
     */
    public void isolateZooKeeper(int server) throws IOException {
        if (server < 1 || server > zkUsers.size()) {
            throw new IllegalArgumentException("ZooKeeper server must be within [1, " + zkUsers.size() + "]: " + server);
        }
        int i = server - 1;
        List<Integer> peers = new ArrayList<>();
        List<Integer> own = List.of(zkPeerPorts.get(i), zkElectionPorts.get(i));
        for (int j = 0; j < zkUsers.size(); j++) {
            if (j != i) {
                peers.add(zkPeerPorts.get(j));
                peers.add(zkElectionPorts.get(j));
            }
        }
        netfilter.cut(zkUsers.get(i), peers);
        netfilter.cutPorts(own);
    }

    /**
     * The ZooKeeper server (1-based) a client session is connected to, from each server's
     * {@code cons}; empty when none lists it (it is between servers).
     */
    public OptionalInt zkServerOf(long sessionId) {
        String sid = "sid=0x" + Long.toHexString(sessionId) + ",";
        for (int i = 0; i < zkClientPorts.size(); i++) {
            if (fourLetters(zkClientPorts.get(i), "cons").contains(sid)) {
                return OptionalInt.of(i + 1);
            }
        }
        return OptionalInt.empty();
    }

    /** Every cut healed. */
    public void heal() throws IOException {
        netfilter.heal();
    }

    /**
     * Every process of the node stopped (SIGSTOP), as a node whose kernel hangs. Twice: a process
     * forked while the first pass ran (a shell's next command) is stopped by the second.
     */
    public void freeze(Node node) throws IOException {
        for (int pass = 0; pass < 2; pass++) {
            Commands.runAllowing(List.of("pkill", "-STOP", "-u", node.user().name()), 1);
        }
    }

    public void thaw(Node node) throws IOException {
        Commands.runAllowing(List.of("pkill", "-CONT", "-u", node.user().name()), 1);
    }

    /** Every process of the node killed (SIGKILL), as a node that crashes. */
    public void crash(Node node) throws IOException, InterruptedException {
        Commands.runAllowing(List.of("pkill", "-KILL", "-u", node.user().name()), 1);
        node.nodeManager().kill();
    }

    /** The node's NodeManager started again (with NM recovery, as after a reboot). */
    public void restartNodeManager(Node node) throws IOException {
        node.nodeManager().start();
    }

    /** {@code kill -9} of the ResourceManager. */
    public void killResourceManager() throws InterruptedException {
        resourceManager.kill();
    }

    /** The ResourceManager started again; it recovers its applications from the state store. */
    public void startResourceManager() throws IOException, InterruptedException {
        resourceManager.start();
        await("the ResourceManager back", () -> {
            try {
                nodeStates();
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Each ZooKeeper server's mode (leader, follower, or absent when it does not answer). */
    public List<String> zkModes() {
        List<String> modes = new ArrayList<>();
        for (int port : zkClientPorts) {
            Matcher m = Pattern.compile("Mode: (\\w+)").matcher(fourLetters(port, "srvr"));
            modes.add(m.find() ? m.group(1) : "absent");
        }
        return modes;
    }

    /** A four-letter command's reply from the server on {@code port}; empty when it does not answer. */
    private static String fourLetters(int port, String command) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return ""; // not serving
        }
    }

    private String get(String url) throws IOException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Accept", "application/json").timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted reading " + url, e);
        }
    }

    /**
     * Waits for {@code what} with bounded polling; gives up at once, with its output, when a daemon
     * has exited (it will not come back by itself).
     */
    private void await(String what, IoCondition condition) throws IOException {
        try {
            Awaitility.await(what).atMost(START_WITHIN).pollInterval(Duration.ofMillis(250))
                    .failFast(() -> all().stream().anyMatch(d -> !d.isAlive()))
                    .until(() -> {
                        try {
                            return condition.holds();
                        } catch (IOException notYet) {
                            return false; // not serving yet
                        }
                    });
        } catch (TerminalFailureException e) {
            Daemon dead = all().stream().filter(d -> !d.isAlive()).findFirst().orElseThrow();
            throw new IOException(dead.name() + " exited while waiting for " + what + ":\n" + dead.tail(15));
        } catch (ConditionTimeoutException e) {
            throw new IOException("the field cluster did not reach " + what + " within " + START_WITHIN
                    + "; daemons' output in " + logs);
        }
    }

    @FunctionalInterface
    private interface IoCondition {
        boolean holds() throws IOException;
    }

    private List<Daemon> all() {
        List<Daemon> all = new ArrayList<>();
        nodes.forEach(n -> all.add(n.nodeManager()));
        all.add(resourceManager);
        all.add(dataNode);
        all.add(nameNode);
        all.addAll(zookeepers);
        return all;
    }

    /** Heals every cut, thaws and stops every process (nodes' containers included). */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            netfilter.heal();
        } finally {
            for (Node node : nodes) {
                thaw(node);
                Commands.runAllowing(List.of("pkill", "-KILL", "-u", node.user().name()), 1);
            }
            for (Daemon d : all()) {
                d.close();
            }
            // What a run leaves to read stays (logs, containers' logs, state); the copies of jars and
            // HDFS blocks go, about 90 MB a run.
            Trees.delete(base.resolve("hdfs"));
            for (int i = 1; i <= nodes.size(); i++) {
                Trees.delete(base.resolve("node" + i).resolve("local"));
            }
        }
    }
}
