package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.am.client.SubmitCommand;
import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.field.FieldCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * What the field ITs share: a started field cluster, a ZooKeeper and a YARN client on it, and a
 * directory where every node's processes record what they did, writable by each node's user.
 */
final class FieldApps implements AutoCloseable {
    final FieldCluster cluster;
    final CuratorFramework zk;
    final YarnClient yarn;
    private final Path records;

    private FieldApps(FieldCluster cluster, CuratorFramework zk, YarnClient yarn, Path records) {
        this.cluster = cluster;
        this.zk = zk;
        this.yarn = yarn;
        this.records = records;
    }

    /** Starts the cluster of {@code options} and the clients on it; records go to {@code /tmp/<prefix>*}. */
    static FieldApps start(FieldCluster.Options options, String prefix) throws Exception {
        FieldCluster cluster = FieldCluster.start(options);
        CuratorFramework zk = null;
        YarnClient yarn = null;
        try {
            zk = ZkClients.connect(cluster.zkConnectString(), Duration.ofSeconds(20), Duration.ofSeconds(10),
                    null, List.of());
            yarn = YarnClient.createYarnClient();
            yarn.init(conf(cluster));
            yarn.start();
            Path records = Files.createTempDirectory(Path.of("/tmp"), prefix);
            Files.setPosixFilePermissions(records, PosixFilePermissions.fromString("rwxrwxrwx"));
            return new FieldApps(cluster, zk, yarn, records);
        } catch (Exception | Error e) {
            if (yarn != null) {
                yarn.stop();
            }
            if (zk != null) {
                zk.close();
            }
            cluster.close();
            throw e;
        }
    }

    /**
     * A cluster of {@code nodes} whose daemons run on the class path the build listed
     * ({@code amlease.field.classpath}), with {@code extra} in its {@code yarn-site.xml}.
     */
    static FieldCluster.Options options(int nodes, Duration nodeExpiry, Map<String, String> extra) throws Exception {
        List<Path> jars = FieldCluster.Options.jarsListedIn(Path.of(System.getProperty("amlease.field.classpath")),
                nodes, nodeExpiry).jars();
        return new FieldCluster.Options(nodes, nodeExpiry, jars, extra);
    }

    /** A client's configuration of the cluster, as an operator's would read it from its conf dir. */
    Configuration conf() {
        return conf(cluster);
    }

    private static Configuration conf(FieldCluster cluster) {
        Configuration conf = new YarnConfiguration();
        for (String site : List.of("core-site.xml", "hdfs-site.xml", "yarn-site.xml")) {
            conf.addResource(new org.apache.hadoop.fs.Path(cluster.confDir().resolve(site).toUri()));
        }
        return conf;
    }

    /** A directory for one application's records, writable by every node's user. */
    Path appDir(String name) throws Exception {
        Path dir = Files.createDirectory(records.resolve(name));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    /** The node whose user a process ran as. */
    FieldCluster.Node nodeOf(String user) {
        return cluster.nodes().stream().filter(n -> n.user().name().equals(user)).findFirst().orElseThrow();
    }

    /** Submits with {@code amlease submit}'s own code and this build's AM jar; asserts it exited 0. */
    ApplicationId submit(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("--am-jar", YarnZkCluster.amJar().toString()));
        all.addAll(List.of(args));
        int exit = SubmitCommand.submit(conf(), new PrintStream(out, true), new PrintStream(err, true),
                all.toArray(String[]::new));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return ApplicationId.fromString(out.toString(StandardCharsets.UTF_8).trim());
    }

    @Override
    public void close() throws Exception {
        try {
            yarn.stop();
            zk.close();
        } finally {
            cluster.close();
        }
    }
}
